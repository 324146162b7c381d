import pino from "pino";
import { humanDestination, resolveLogFormat } from "@/lib/log/human-log-format";

const LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

/**
 * The process logger (pino, JSON lines on stdout). Redaction is a second line of defence: code never
 * passes secrets, signatures or raw bodies, and these paths are censored if one slips through.
 */
export const logger = pino(
  {
  // An invalid LOG_LEVEL falls back to info here; the settings validation names it and stops the start.
  level: LEVELS.has(process.env.LOG_LEVEL ?? "") ? process.env.LOG_LEVEL : "info",
  base: { service: "acredita" },
  redact: {
    paths: [
      "secret",
      "secrets",
      "*.secret",
      "*.secrets",
      "signature",
      "*.signature",
      "headers",
      "*.headers",
      "body",
      "*.body",
      "rawBody",
      "authorization",
      "*.authorization",
      "password",
      "*.password",
      "token",
      "*.token",
    ],
    censor: "[redacted]",
  },
  },
  logDestination(),
);

/**
 * Where the lines go, and in what form. LOG_FILE: that file, JSON (used by the secrets test to read
 * every line). Else standard output, or standard error with LOG_STREAM=stderr (the CLIs whose standard
 * output is their report: lib/log/cli-logs-to-stderr.ts); there one readable line per record when that
 * stream is a terminal or LOG_FORMAT=human, JSON when it is not or LOG_FORMAT=json (lib/log/human-log-format.ts).
 */
function logDestination(): pino.DestinationStream | undefined {
  if (process.env.LOG_FILE) return pino.destination({ dest: process.env.LOG_FILE, sync: true });
  const fd = process.env.LOG_STREAM === "stderr" ? 2 : 1;
  if (resolveLogFormat(process.env.LOG_FORMAT, fd) === "human") return humanDestination(fd);
  return fd === 2 ? pino.destination({ dest: 2, sync: true }) : undefined;
}
