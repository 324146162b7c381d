import pino from "pino";

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
  // LOG_FILE sends the lines to a file instead of stdout (used by the secrets test to read every line);
  // LOG_STREAM=stderr to standard error (the CLIs whose standard output is their report: lib/log/cli-logs-to-stderr.ts).
  process.env.LOG_FILE ? pino.destination({ dest: process.env.LOG_FILE, sync: true }) : process.env.LOG_STREAM === "stderr" ? pino.destination({ dest: 2, sync: true }) : undefined,
);
