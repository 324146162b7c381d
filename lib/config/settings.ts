import { z } from "zod";
import { DEFAULT_DATABASE_URL } from "@/lib/db/url";

/**
 * Demo defaults. They are public (documented in the README) so that a fresh clone runs with one
 * command; any deployment sets its own values through the environment.
 */
export const DEMO_DEFAULTS = {
  PORT: "3000",
  DATABASE_URL: DEFAULT_DATABASE_URL,
  API_TOKEN: "demo-api-token",
  LAB_WEBHOOK_SECRET: "lab_demo_secret_2026",
  WEBHOOK_TOLERANCE_SECONDS: "300",
  AUTH_SECRET: "acredita-demo-auth-secret-change-me-0001",
} as const;

const commaList = z
  .string()
  .transform((value) => value.split(",").map((part) => part.trim()).filter((part) => part.length > 0))
  .pipe(z.array(z.string().min(8, "each secret needs at least 8 characters")).min(1, "at least one secret"));

const settingsSchema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535),
  DATABASE_URL: z
    .string()
    .trim()
    .refine((url) => /^(file:|postgres(ql)?:\/\/)/i.test(url), "must start with file: or postgresql://"),
  API_TOKEN: z.string().trim().min(8, "needs at least 8 characters"),
  LAB_WEBHOOK_SECRET: commaList,
  WEBHOOK_TOLERANCE_SECONDS: z.coerce.number().int().min(1).max(86_400),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  DATABASE_BUSY_TIMEOUT_MS: z.coerce.number().int().min(0).max(120_000).default(5_000),
  /** PostgreSQL: connections this process keeps open at most (per server or worker process). */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(10),
  /** PostgreSQL: how long a request waits for a free pooled connection, or to start a transaction (ms). */
  DATABASE_POOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** PostgreSQL: the server cancels any one statement running longer than this (ms; `statement_timeout`). */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(50).max(600_000).default(5_000),
  /** Both databases: a transaction still open after this long is rolled back and the delivery answers 503 (ms). */
  DATABASE_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(50).max(600_000).default(15_000),
  /** Signs and encrypts session cookies (better-auth). At least 32 characters. */
  AUTH_SECRET: z.string().trim().min(32, "needs at least 32 characters"),
  /** The dashboard's public URL; a sign-in request's Origin must match it (or AUTH_TRUSTED_ORIGINS). Default http://127.0.0.1:<PORT>. */
  AUTH_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** More origins allowed to sign in (comma-separated), e.g. http://localhost:3000. */
  AUTH_TRUSTED_ORIGINS: z
    .string()
    .optional()
    .transform((value) => (value ?? "").split(",").map((part) => part.trim()).filter((part) => part.length > 0))
    .pipe(z.array(z.url({ protocol: /^https?$/ }))),
  /** Sign-in attempts allowed per client IP within AUTH_LOGIN_WINDOW_SECONDS; more answer 429. */
  AUTH_LOGIN_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1_000).default(5),
  AUTH_LOGIN_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /** Create the demo users (one per role) even when NODE_ENV=production. Off unless set to true. */
  DEMO_USERS_IN_PRODUCTION: z.enum(["true", "false"]).default("false").transform((value) => value === "true"),
});

/** Validated settings, read once from the environment. Secrets are arrays of trimmed values. */
export type Settings = z.infer<typeof settingsSchema>;

/** Raised when an environment variable is invalid; the message names the variable and never its value. */
export class SettingsError extends Error {
  constructor(public readonly issues: string[]) {
    super(`invalid settings: ${issues.join("; ")}`);
    this.name = "SettingsError";
  }
}

/**
 * Reads and validates settings from `env` (default `process.env`), filling demo defaults for unset ones.
 * Returns the parsed {@link Settings}. Throws {@link SettingsError} naming each wrong variable.
 */
export function readSettings(env: Record<string, string | undefined> = process.env): Settings {
  const input: Record<string, string | undefined> = { ...DEMO_DEFAULTS };
  for (const key of Object.keys(settingsSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== "") input[key] = value;
  }
  const parsed = settingsSchema.safeParse(input);
  if (!parsed.success) {
    throw new SettingsError(parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`));
  }
  return parsed.data;
}

let cached: Settings | undefined;

/** The process's settings (validated on first use, then cached). Throws {@link SettingsError}. */
export function settings(): Settings {
  cached ??= readSettings();
  return cached;
}

/** Names of the settings still on their public demo value, for the start banner and the health page. */
export function settingsOnDemoDefaults(env: Record<string, string | undefined> = process.env): string[] {
  return (Object.keys(DEMO_DEFAULTS) as (keyof typeof DEMO_DEFAULTS)[]).filter((key) => !env[key]);
}
