import { z } from "zod";
import { DEFAULT_DATABASE_URL } from "@/lib/config/database-url";

/**
 * How the process runs. `demo` (`npm run demo`): the public demo secrets, data and users below, so a
 * fresh clone runs with one command. `production` (`npm start`, and the default for every process):
 * no demo value of any kind; each secret must be set by the operator.
 */
export type RunMode = "demo" | "production";

/** Defaults that are not secrets, in both modes. */
const DEFAULTS = {
  PORT: "3000",
  DATABASE_URL: DEFAULT_DATABASE_URL,
  WEBHOOK_TOLERANCE_SECONDS: "300",
} as const;

/**
 * Public demo secrets (they are printed in the README): used only in demo mode, and refused in
 * production even when set explicitly, since anyone can sign with them.
 */
/** The label suffix of a public demo secret: what it signed is never applied outside demo mode (lib/apply/apply-stored-event.ts). */
export const DEMO_SECRET_LABEL_SUFFIX = "[demo]";

export const DEMO_SECRETS = {
  API_TOKEN: "demo-api-token",
  LAB_WEBHOOK_SECRET: "lab_demo_secret_2026",
  AUTH_SECRET: "acredita-demo-auth-secret-change-me-0001",
} as const;

/** Minimum length of AUTH_SECRET and API_TOKEN in production (32 characters, about 190 bits when random). */
export const PRODUCTION_SECRET_MIN_LENGTH = 32;

/** The run mode named by `ACREDITA_MODE` (`demo` or `production`); anything else, or unset, is production. */
export function runMode(env: Record<string, string | undefined> = process.env): RunMode {
  return env.ACREDITA_MODE?.trim().toLowerCase() === "demo" ? "demo" : "production";
}

const commaList = z
  .string()
  .transform((value) => value.split(",").map((part) => part.trim()).filter((part) => part.length > 0))
  .pipe(z.array(z.string().min(8, "each secret needs at least 8 characters")).min(1, "at least one secret"));

/** "true"/"false" (also 1/0, yes/no) from the environment; anything else is refused, never read as false. */
const booleanSetting = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(["true", "false", "1", "0", "yes", "no"], "must be true or false"))
  .transform((value) => value === "true" || value === "1" || value === "yes");

const settingsSchema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535),
  /** `npm run receiver`: the port and address of the dedicated webhook receiver process. */
  RECEIVER_PORT: z.coerce.number().int().min(1).max(65535).default(3001),
  RECEIVER_HOST: z.string().trim().min(1).default("127.0.0.1"),
  DATABASE_URL: z
    .string()
    .trim()
    .refine((url) => /^(file:|postgres(ql)?:\/\/)/i.test(url), "must start with file: or postgresql://"),
  /** `demo` or `production` (default): see {@link RunMode}. */
  ACREDITA_MODE: z.enum(["demo", "production"], "must be demo or production").default("production"),
  /** The operator's bearer token for the JSON API; unset in production: no operator token is accepted. */
  API_TOKEN: z.string().trim().min(8, "needs at least 8 characters").optional(),
  /** The lab endpoint's signing secrets; unset in production: the lab endpoint does not exist. */
  LAB_WEBHOOK_SECRET: commaList.optional(),
  WEBHOOK_TOLERANCE_SECONDS: z.coerce.number().int().min(1).max(86_400),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** `human`, `json`, or `auto` (human on a terminal, JSON on a pipe or file): lib/log/human-log-format.ts. */
  LOG_FORMAT: z.enum(["auto", "human", "json"]).default("auto"),
  DATABASE_BUSY_TIMEOUT_MS: z.coerce.number().int().min(0).max(120_000).default(5_000),
  /**
   * How long a webhook body may take to arrive once its headers are in (ms): providers send the body at
   * once, so a slower one is answered 408 and its connection closed, rather than holding up to
   * WEBHOOK_MAX_BODY_BYTES of memory until Node's 300 s request timeout. The headersTimeout of
   * `npm start`'s server and of the receiver is the same bound.
   */
  WEBHOOK_BODY_READ_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  /** `npm start`'s server and `npm run receiver` (each its own count): connections open at once from one client address (socket address); past it a new one is answered 503 and closed. 0: no per-address bound (behind a reverse proxy every connection has its address). */
  RECEIVER_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(0).max(100_000).default(20),
  /** `npm start`'s server and `npm run receiver` (each its own count): connections open at once in all; past it a new one is answered 503 and closed. Each may buffer up to WEBHOOK_MAX_BODY_BYTES while its body arrives. */
  RECEIVER_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100_000).default(256),
  /** Largest webhook body accepted (bytes); larger ones are 413 before or while reading (signed provider payloads reach 900 KB). */
  WEBHOOK_MAX_BODY_BYTES: z.coerce.number().int().min(1_024).max(67_108_864).default(1_048_576),
  /** Days a stored payload (WebhookEvent.payload, DeadLetter.payload) is kept; decisions, ledger and orders stay. */
  PAYLOAD_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
  // ---- Refusals before a valid signature, and how long decision rows and their counts are kept
  // (lib/decisions/rejection-counter.ts, lib/retention/purge-decisions.ts).
  /** Refusals stored in full as decision rows per endpoint, reason and UTC minute (per process); the rest are only counted. 0 stores none. */
  REJECTION_SAMPLE_PER_MINUTE: z.coerce.number().int().min(0).max(10_000).default(5),
  /** How often counted refusals are written to RejectionCount (ms): one upsert per endpoint, reason and minute per flush. */
  REJECTION_FLUSH_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
  /** Days a decision row is kept (every outcome); older ones are deleted by the daily retention run. */
  DECISION_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(90),
  /** Days a per-minute refusal count is kept. */
  REJECTION_COUNT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
  /** PostgreSQL: connections this process keeps open at most (per server or worker process). */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(10),
  /** PostgreSQL: how long a request waits for a free pooled connection, or to start a transaction (ms). */
  DATABASE_POOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** PostgreSQL: the server cancels any one statement running longer than this (ms; `statement_timeout`). */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(50).max(600_000).default(5_000),
  /** Both databases: a transaction still open after this long is rolled back and the delivery answers 503 (ms). */
  DATABASE_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(50).max(600_000).default(15_000),
  /** Processing mode of the Stripe, Yolfi and Standard Webhooks endpoints (inbox by default). */
  WEBHOOK_PROCESSING_MODE: z.enum(["inline", "inbox"], "must be inline or inbox").default("inbox"),
  /** Processing mode of the lab endpoint (inline by default, as in the seed article). */
  LAB_PROCESSING_MODE: z.enum(["inline", "inbox"], "must be inline or inbox").default("inline"),
  /** Run the inbox worker and outbox dispatcher inside the server process (instrumentation.ts). */
  INBOX_WORKER_IN_PROCESS: booleanSetting.default(true),
  /** Whether this process (server or `npm run worker`) also runs an outbox dispatcher; false leaves sending to other processes. */
  OUTBOX_DISPATCHER_ENABLED: booleanSetting.default(true),
  /** Largest settlement report an upload (POST /api/reconciliations, the reconciliation page) may send (bytes); larger ones are 413 naming the limit. */
  RECONCILIATION_UPLOAD_MAX_BYTES: z.coerce.number().int().min(1_024).max(2_147_483_647).default(209_715_200),
  /**
   * Bytes the order ids of one uploaded lab-format run may take in the reconciliation worker's heap
   * (estimated per row by lib/reconciliation/settlement-csv.ts heldBytesOf: 128 B plus 2 B a character);
   * the row that passes it fails the run at its line. Default 96 MiB, half the worker's heap: 500,000
   * rows of ids up to 36 characters fit.
   */
  RECONCILIATION_RUN_MAX_HELD_BYTES: z.coerce.number().int().min(1_048_576).max(17_179_869_184).default(100_663_296),
  /**
   * The reconciliation worker process's V8 heap cap (MB, --max-old-space-size): past it the process dies
   * and its run is failed with that reason, not retried. Used by the server's worker process.
   */
  RECONCILIATION_WORKER_MAX_HEAP_MB: z.coerce.number().int().min(32).max(65_536).default(192),
  /** Runs one uploader (user, API key, API_TOKEN) may have queued or running at once; one more upload is 429 before it is read. */
  RECONCILIATION_MAX_PENDING_RUNS_PER_ACTOR: z.coerce.number().int().min(1).max(1_000).default(3),
  /** Runs queued or running at once over all uploaders (each file up to RECONCILIATION_UPLOAD_MAX_BYTES on disk); one more is 429. */
  RECONCILIATION_MAX_PENDING_RUNS: z.coerce.number().int().min(1).max(10_000).default(20),
  /** Folder where uploaded reports wait for the reconciliation worker (deleted when their run ends). */
  RECONCILIATION_SPOOL_DIR: z.string().trim().min(1).default("data/reconciliation-uploads"),
  /** Whether this process (server or `npm run worker`) also runs a reconciliation worker; false leaves runs to other processes. */
  RECONCILIATION_WORKER_ENABLED: booleanSetting.default(true),
  /**
   * In the server (instrumentation.ts): run its reconciliation worker in a child process beside it (own
   * event loop, core and database connection) so webhooks are answered at idle speed while a large run
   * proceeds; false runs it on the server's own event loop. `npm run worker` is its own process either way.
   */
  RECONCILIATION_WORKER_PROCESS: booleanSetting.default(true),
  /** How often an idle worker looks for due inbox events and outbox messages (ms). */
  INBOX_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  /**
   * Due inbox events a worker claims in one statement and applies in one transaction (a savepoint
   * each, one durable commit): 1 applies one event per transaction.
   */
  INBOX_CLAIM_BATCH: z.coerce.number().int().min(1).max(500).default(64),
  /** How long a claimed inbox event stays reserved for its worker before another may take it (ms). */
  INBOX_LEASE_MS: z.coerce.number().int().min(200).max(3_600_000).default(30_000),
  /** First retry delay (ms); each retry doubles it, with jitter, up to INBOX_RETRY_MAX_DELAY_MS. */
  INBOX_RETRY_BASE_MS: z.coerce.number().int().min(1).max(3_600_000).default(1_000),
  INBOX_RETRY_MAX_DELAY_MS: z.coerce.number().int().min(1).max(86_400_000).default(300_000),
  /** Attempts (the first included) before a retryable failure becomes a dead letter. */
  INBOX_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1_000).default(12),
  /** Age (s, since the event was received) after which a retryable failure becomes a dead letter. Stripe retries for 3 days. */
  INBOX_MAX_AGE_SECONDS: z.coerce.number().int().min(1).max(31_536_000).default(259_200),
  /** The merchant's fulfilment webhook: when set, a payment that moves an order to paid queues a POST here. */
  FULFILMENT_WEBHOOK_URL: z
    .string()
    .trim()
    .refine((url) => /^https?:\/\/[^\s]+$/i.test(url), "must be an http:// or https:// URL")
    .optional(),
  /** Signs each fulfilment POST (`Acredita-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>." + body)>`) when set. */
  FULFILMENT_WEBHOOK_SECRET: z.string().trim().min(16, "needs at least 16 characters").optional(),
  /** How long the dispatcher waits for the fulfilment target's answer (ms); no answer makes the message uncertain. */
  OUTBOX_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Sends (the first included) before a retryable outbox failure is marked failed. */
  OUTBOX_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1_000).default(10),
  /** How long a message being sent stays reserved for its dispatcher (ms); must exceed OUTBOX_TIMEOUT_MS. */
  OUTBOX_LEASE_MS: z.coerce.number().int().min(200).max(3_600_000).default(60_000),
  /** Signs and encrypts session cookies (better-auth). At least 32 characters; required by the server in production. */
  AUTH_SECRET: z.string().trim().min(32, "needs at least 32 characters").optional(),
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
  // ---- Access control: sessions, trusted proxies, per-account lockout, API keys (docs/access.md) ----
  /** Absolute session lifetime (days since sign-in), whatever the activity; the idle limit stays 8 hours. */
  SESSION_MAX_AGE_DAYS: z.coerce.number().min(0.01).max(365).default(7),
  /**
   * Reverse proxies whose X-Forwarded-For is believed (comma-separated IPs or CIDRs). Unset: none, the
   * socket address is the client. Set: the chain is walked right to left, skipping these hops.
   */
  TRUSTED_PROXIES: z
    .string()
    .optional()
    .transform((value) => (value ?? "").split(",").map((part) => part.trim()).filter((part) => part.length > 0))
    .pipe(z.array(z.union([z.cidrv4(), z.cidrv6(), z.ipv4(), z.ipv6()], "each entry must be an IP address or CIDR range"))),
  /** Consecutive failed sign-ins to one account before it is locked. */
  AUTH_LOCKOUT_THRESHOLD: z.coerce.number().int().min(1).max(1_000).default(5),
  /** First lock (s); each further failure after a lock doubles it, up to AUTH_LOCKOUT_MAX_SECONDS. */
  AUTH_LOCKOUT_BASE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  AUTH_LOCKOUT_MAX_SECONDS: z.coerce.number().int().min(1).max(604_800).default(3_600),
  /** Days a new API key is valid unless the admin picks another expiry (at most 365). */
  API_KEY_DEFAULT_DAYS: z.coerce.number().int().min(1).max(365).default(90),
  // ---- end access control ----
  /** Where Stripe's API is called (backfill): Stripe's own, or a local fake in tests. */
  STRIPE_API_BASE: z.url({ protocol: /^https?$/ }).default("https://api.stripe.com"),
  /** Seconds between gap checks (missed events of the Stripe endpoints with an API key, last three days, fetched and stored); 0 turns it off. */
  GAP_CHECK_INTERVAL_SECONDS: z.coerce.number().int().min(0).max(604_800).default(3_600),
  /** When (HH:MM, UTC) each Stripe endpoint with an API key pulls the previous UTC day's itemized balance report and reconciles it; `off` turns it off. */
  SETTLEMENT_PULL_TIME: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^(off|([01]\d|2[0-3]):[0-5]\d)$/, "a UTC time HH:MM (00:00 to 23:59), or off")
    .default("06:00"),
  /** Seconds between evaluations of the alert rules (lib/alerts); 0 turns alerting off. */
  ALERTS_CHECK_INTERVAL_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
  /** Lets alert channels use http and private, loopback or link-local addresses (tests, closed networks); never on a public deployment. */
  ALERTS_ALLOW_PRIVATE_URLS: booleanSetting.default(false),
  /** Where e-mail alerts are sent from: smtp://user:pass@host:port or smtps://... (nodemailer); unset, e-mail channels cannot be added. */
  SMTP_URL: z
    .string()
    .trim()
    .refine((url) => /^smtps?:\/\/[^\s]+$/i.test(url), "must be an smtp:// or smtps:// URL")
    .optional(),
  /** The From address of e-mail alerts. */
  ALERTS_EMAIL_FROM: z.string().trim().min(3).default("Acredita alerts <alerts@acredita.invalid>"),
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
 * For commands: {@link readSettings}, or prints "<who> cannot start: <each wrong variable>" to stderr and
 * exits the process with 1. Any other error propagates.
 */
export function readSettingsOrExit(who: string): Settings {
  try {
    return readSettings();
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    console.error(`${who} cannot start: ${error.issues.join("; ")}`);
    process.exit(1);
  }
}

/**
 * Reads and validates settings from `env` (default `process.env`). Unset settings take their
 * non-secret defaults; in demo mode (`ACREDITA_MODE=demo`) the secrets take their public demo values.
 * In production a secret that is set must not be a public demo value, and `API_TOKEN` needs
 * {@link PRODUCTION_SECRET_MIN_LENGTH} characters. Returns the parsed {@link Settings}.
 * Throws {@link SettingsError} naming every wrong variable at once, never a value.
 */
export function readSettings(env: Record<string, string | undefined> = process.env): Settings {
  const mode = runMode(env);
  const input: Record<string, string | undefined> = { ...DEFAULTS, ...(mode === "demo" ? DEMO_SECRETS : {}) };
  for (const key of Object.keys(settingsSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== "") input[key] = value;
  }
  // Normalised, but an unknown value still fails the enum below (a typo must not pass as production silently).
  input.ACREDITA_MODE = env.ACREDITA_MODE?.trim() ? env.ACREDITA_MODE.trim().toLowerCase() : mode;
  // Every problem at once, so an operator fixes them in one go: production's rules first, then the
  // schema's for the variables those did not already name (a 3-character API_TOKEN is one issue, not two).
  const issues = mode === "production" ? productionSecretIssues(env) : [];
  const parsed = settingsSchema
    .refine((value) => value.OUTBOX_LEASE_MS > value.OUTBOX_TIMEOUT_MS, { path: ["OUTBOX_LEASE_MS"], message: "must be greater than OUTBOX_TIMEOUT_MS" })
    .refine((value) => value.INBOX_RETRY_MAX_DELAY_MS >= value.INBOX_RETRY_BASE_MS, { path: ["INBOX_RETRY_MAX_DELAY_MS"], message: "must be at least INBOX_RETRY_BASE_MS" })
    .safeParse(input);
  if (!parsed.success) {
    const named = new Set(issues.map(issueVariable));
    issues.push(...parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).filter((issue) => !named.has(issueVariable(issue))));
  }
  if (issues.length > 0 || !parsed.success) throw new SettingsError(issues);
  return parsed.data;
}

/**
 * The variable an issue names: its first word (`AUTH_SECRET: ...`), or the one after an endpoint's
 * prefix (`endpoint stripe: STRIPE_WEBHOOK_SECRET[0] ...`, position dropped); the issue itself otherwise.
 */
export function issueVariable(issue: string): string {
  return /^(?:endpoint [^:]+: )?([A-Z][A-Z0-9_]*)/.exec(issue)?.[1] ?? issue;
}

/** Every public demo value an operator might paste by mistake: the settings' and the endpoints'. */
export function publicDemoValues(): Set<string> {
  return new Set<string>([...Object.values(DEMO_SECRETS), ...Object.values(DEMO_ENDPOINT_SECRET_VALUES)]);
}

/**
 * Demo endpoint secrets, by variable (the endpoints module uses them in demo mode). Kept here so the
 * settings can refuse them in production without importing the endpoints.
 */
export const DEMO_ENDPOINT_SECRET_VALUES = {
  STRIPE_WEBHOOK_SECRET: "whsec_acredita_stripe_demo_2026",
  STRIPE_TEST_WEBHOOK_SECRET: "whsec_acredita_stripe_test_demo_2026",
  YOLFI_WEBHOOK_SECRET: "yolfi_acredita_demo_signing_secret_2026",
  YOLFI_TEST_WEBHOOK_SECRET: "yolfi_acredita_test_demo_signing_secret_2026",
  // "whsec_" + base64("acredita-standard-webhooks-demo-key")
  STANDARD_WEBHOOKS_SECRET: "whsec_YWNyZWRpdGEtc3RhbmRhcmQtd2ViaG9va3MtZGVtby1rZXk=",
} as const;

/** The key bytes of the Standard Webhooks demo secret: the HMAC key, whatever spelling carries it. */
const DEMO_STANDARD_WEBHOOKS_KEY = Buffer.from(DEMO_ENDPOINT_SECRET_VALUES.STANDARD_WEBHOOKS_SECRET.slice("whsec_".length), "base64");

/**
 * True when `part` is a public demo value: as printed, or (Standard Webhooks keys are the base64-decoded
 * bytes, and the verifier takes them with or without `whsec_`, with or without padding, base64 or
 * base64url) any spelling that decodes to the demo key.
 */
function isPublicDemoValue(part: string): boolean {
  if (publicDemoValues().has(part)) return true;
  const encoded = part.startsWith("whsec_") ? part.slice("whsec_".length) : part;
  return /^[A-Za-z0-9+/_-]+=*$/.test(encoded) && Buffer.from(encoded, "base64").equals(DEMO_STANDARD_WEBHOOKS_KEY);
}

/** True when any comma-separated part of `raw` (each trimmed) is a public demo value, in any spelling the verifiers accept. */
export function holdsPublicDemoValue(raw: string | undefined): boolean {
  if (!raw) return false;
  return raw.split(",").some((part) => isPublicDemoValue(part.trim()));
}

/**
 * Production's rules for the secrets that are set: no public demo value (any of them, in any
 * variable), and API_TOKEN at least {@link PRODUCTION_SECRET_MIN_LENGTH} characters. Returns one issue
 * per variable, naming it and never its value.
 */
function productionSecretIssues(env: Record<string, string | undefined>): string[] {
  const issues: string[] = [];
  for (const [name, raw] of Object.entries(env)) {
    if (!/^[A-Z][A-Z0-9_]*$/.test(name) || !raw) continue;
    if (holdsPublicDemoValue(raw)) issues.push(`${name}: is a public demo value (printed in the README); set your own secret`);
  }
  const token = env.API_TOKEN?.trim();
  if (token && token.length < PRODUCTION_SECRET_MIN_LENGTH && !holdsPublicDemoValue(token)) {
    issues.push(`API_TOKEN: needs at least ${PRODUCTION_SECRET_MIN_LENGTH} characters in production`);
  }
  return issues.sort();
}

/**
 * What the server (dashboard, API, webhooks) needs in production beyond {@link readSettings}: an
 * AUTH_SECRET of at least {@link PRODUCTION_SECRET_MIN_LENGTH} characters. Returns the issues (empty
 * in demo mode or when all is well), each naming the variable.
 */
export function serverSettingsIssues(config: Pick<Settings, "ACREDITA_MODE" | "AUTH_SECRET">): string[] {
  if (config.ACREDITA_MODE === "demo") return [];
  return config.AUTH_SECRET ? [] : [`AUTH_SECRET: is required in production (at least ${PRODUCTION_SECRET_MIN_LENGTH} characters)`];
}

let cached: Settings | undefined;

/** The process's settings (validated on first use, then cached). Throws {@link SettingsError}. */
export function settings(): Settings {
  cached ??= readSettings();
  return cached;
}

/** The default of a setting that has one: what it reads as while its variable is unset (retention prints them). Throws for a setting without a default. */
export function settingDefault<K extends keyof Settings>(name: K): Settings[K] {
  return (settingsSchema.shape[name] as z.ZodType).parse(undefined) as Settings[K];
}

/**
 * One setting read from `env` alone, or its default when the variable holds a value it refuses (that
 * value is reported by {@link readSettings}, with the others): for checks that must go on when another
 * setting is wrong (the endpoints' tolerance at the start, which lists every refusal at once).
 */
export function settingFrom<K extends keyof Settings>(name: K, env: Record<string, string | undefined>): Settings[K] {
  const schema = settingsSchema.shape[name] as z.ZodType;
  const parsed = schema.safeParse(env[name]?.trim() || undefined);
  if (parsed.success && parsed.data !== undefined) return parsed.data as Settings[K];
  // The defaults kept outside the schema (DEFAULTS) are read as the settings read them.
  const fallback = Object.hasOwn(DEFAULTS, name) ? DEFAULTS[name as keyof typeof DEFAULTS] : undefined;
  return schema.parse(fallback) as Settings[K];
}

/** Names of the secrets on their public demo value (demo mode only), for the start banner. */
export function settingsOnDemoDefaults(env: Record<string, string | undefined> = process.env): string[] {
  if (runMode(env) !== "demo") return [];
  return (Object.keys(DEMO_SECRETS) as (keyof typeof DEMO_SECRETS)[]).filter((key) => !env[key]);
}

/** Every setting this file reads from the environment, in the schema's order (.env.example lists each). */
export const SETTING_NAMES = Object.keys(settingsSchema.shape) as (keyof Settings)[];

/**
 * A setting's default as an environment value ("3000", "inbox", "" for an empty list), or undefined
 * when it has none (a secret, an optional URL): what `.env.example` shows for it. Demo values are not
 * defaults: production never takes them.
 */
export function settingDefaultText(name: keyof Settings): string | undefined {
  if (Object.hasOwn(DEFAULTS, name)) return DEFAULTS[name as keyof typeof DEFAULTS];
  const parsed = (settingsSchema.shape[name] as z.ZodType).safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return undefined;
  return Array.isArray(parsed.data) ? parsed.data.join(",") : String(parsed.data);
}
