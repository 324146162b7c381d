/**
 * Imported FIRST by a command whose standard output is its product (a report, a list, a result line a
 * script greps): its process's log lines go to standard error instead (lib/log/logger.ts reads
 * LOG_STREAM when it is first loaded, which this import precedes).
 */
process.env.LOG_STREAM ??= "stderr";

export {};
