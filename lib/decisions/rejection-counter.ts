import type { ReasonRef } from "@/lib/reasons/reason-codes";
import { settings } from "@/lib/config/settings";
import { db as defaultDb, type Db } from "@/lib/db/client";
import { isTransientDbError, uniqueViolationFields } from "@/lib/db/errors";
import { recordDecisionSafely } from "@/lib/decisions/record-decision";
import { logger } from "@/lib/log/logger";
import { errorMessage } from "@/lib/log/error-message";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";

/** The one aggregate key for every endpoint name that is not configured: the sender's string is never a key. */
export const UNKNOWN_ENDPOINT = "(unknown)";

/** Why a request was refused before a valid signature: a short fixed code, the aggregate's `reason`. */
export type RejectionCode =
  | "unknown_endpoint"
  | "endpoint_misconfigured"
  | "endpoint_disabled"
  | "method_not_allowed"
  | "unsupported_media_type"
  | "body_too_large"
  | "body_unreadable"
  | "body_timeout"
  | "signature_missing"
  | "signature_malformed"
  | "signature_mismatch"
  | "timestamp_outside_tolerance";

/**
 * The code of a failed signature check, from the verifier's reason (lib/providers/signatures: each
 * starts "missing ...", "malformed ...", "timestamp outside tolerance ..." or names the mismatch).
 */
export function signatureRejectionCode(reason: string): RejectionCode {
  if (reason.startsWith("missing ")) return "signature_missing";
  if (reason.startsWith("malformed ")) return "signature_malformed";
  if (reason.startsWith("timestamp outside tolerance")) return "timestamp_outside_tolerance";
  return "signature_mismatch";
}

/** One request refused before its signature verified (or before it was checked at all). */
export interface PreSignatureRejection {
  /** The configured endpoint's name; undefined when the URL names no configured endpoint. */
  endpoint: string | undefined;
  /** The organization owning that endpoint; the default organization when absent (no endpoint, or an environment one). */
  organizationId?: string;
  /** The name as sent in the URL: only a sampled decision row keeps it (clipped to 100 characters). */
  requestedName: string;
  provider: string;
  code: RejectionCode;
  httpStatus: number;
  /** The answer's reason, kept on a sampled decision row. */
  reason: string;
  /** Its code and parameters (lib/reasons/reason-codes.ts), when known. */
  reasonRef?: ReasonRef;
  /** Best-effort id from the unverified body (sampled row only, marked unverified). */
  eventId?: string;
  /** Why a signature failed (retired secret, whitespace, clock skew), on a sampled row. */
  diagnosis?: string;
  /** The diagnosis's code and parameters, rendered on the decision log in the reader's locale. */
  diagnosisRef?: ReasonRef;
  /** The retired secret's label when the diagnosis found one (sampled row's secretLabel; never a value). */
  secretLabel?: string;
}

/** One aggregate row waiting to be written: the refusals of one endpoint, reason and minute since the last flush. */
interface PendingCount {
  endpoint: string;
  provider: string;
  reason: RejectionCode;
  httpStatus: number;
  minute: Date;
  count: number;
  firstAt: Date;
  lastAt: Date;
}

const MINUTE_MS = 60_000;
/** Pending keys kept while the database cannot be written; beyond it new keys are dropped (and logged). */
const MAX_PENDING_KEYS = 10_000;

/** The UTC minute that contains `at` (seconds and milliseconds zero). */
export function minuteOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / MINUTE_MS) * MINUTE_MS);
}

/**
 * Counts refusals in memory and writes them to RejectionCount in batches: every `flushIntervalMs` after
 * the first pending refusal, one transaction upserts one row per endpoint, reason and minute
 * (`count = count + n`), however many requests arrived. It also decides which refusals are stored in
 * full: the first `samplePerMinute` of each endpoint, reason and minute in this process. A crash loses
 * the counts of at most one flush interval; a failed flush keeps them for the next one.
 */
export class RejectionCounter {
  private pending = new Map<string, PendingCount>();
  /** Refusals stored in full per key (endpoint, reason, minute), for the newest minute seen and the one before. */
  private samples = new Map<string, { minute: number; taken: number }>();
  private samplesMinute = 0;
  /** Refusals not counted since the last flush because MAX_PENDING_KEYS keys were waiting to be written. */
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly database: () => Promise<Db>,
    private readonly options: { samplePerMinute: number; flushIntervalMs: number },
  ) {}

  /** Counts one refusal at `at`; returns true when it is among the first of its key and minute, to be stored in full. */
  count(rejection: { endpoint: string; provider: string; reason: RejectionCode; httpStatus: number }, at: Date): boolean {
    const minute = minuteOf(at);
    const key = `${rejection.endpoint}\u0000${rejection.reason}\u0000${minute.getTime()}`;
    const entry = this.pending.get(key);
    if (entry) {
      entry.count += 1;
      if (at < entry.firstAt) entry.firstAt = at;
      if (at > entry.lastAt) entry.lastAt = at;
    } else if (this.pending.size < MAX_PENDING_KEYS) {
      this.pending.set(key, { ...rejection, minute, count: 1, firstAt: at, lastAt: at });
    } else {
      // Logged once per flush, not per request: a flood during a database outage must not fill the log instead.
      this.dropped += 1;
    }
    this.schedule();

    if (minute.getTime() > this.samplesMinute) {
      // A new minute: forget the sample counts of minutes before the previous one (bounded memory; a
      // request that arrives later still for one of those minutes may be sampled again, harmlessly).
      this.samplesMinute = minute.getTime();
      for (const [sampleKey, sample] of this.samples) if (sample.minute < this.samplesMinute - MINUTE_MS) this.samples.delete(sampleKey);
    }
    const sample = this.samples.get(key) ?? { minute: minute.getTime(), taken: 0 };
    if (sample.taken >= this.options.samplePerMinute) return false;
    sample.taken += 1;
    this.samples.set(key, sample);
    return true;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.options.flushIntervalMs);
    // Never keeps a process alive: shutdown flushes explicitly (flushRejectionCounts).
    this.timer.unref();
  }

  /** Writes every pending count now (after any flush in progress). Never throws: a failure is logged and the counts kept for the next flush. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.dropped > 0) {
      logger.error({ dropped: this.dropped, keys: this.pending.size }, "refusals not counted: too many unwritten counts");
      this.dropped = 0;
    }
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      const database = await this.database();
      const upserts = () =>
        database.$transaction(
          batch.map((row) =>
            database.rejectionCount.upsert({
              where: { endpoint_reason_minute: { endpoint: row.endpoint, reason: row.reason, minute: row.minute } },
              create: row,
              update: { count: { increment: row.count }, lastAt: row.lastAt },
            }),
          ),
        );
      try {
        await upserts();
      } catch (error) {
        // Another process created the same key between Prisma's read and insert (the row exists now), or SQLite was busy.
        if (uniqueViolationFields(error) === undefined && !isTransientDbError(error)) throw error;
        await upserts();
      }
    } catch (error) {
      for (const row of batch) this.merge(row);
      this.schedule();
      logger.error({ err: errorMessage(error), keys: batch.length }, "rejection counts not written; kept for the next flush");
    }
  }

  private merge(row: PendingCount): void {
    const key = `${row.endpoint}\u0000${row.reason}\u0000${row.minute.getTime()}`;
    const entry = this.pending.get(key);
    if (!entry) {
      if (this.pending.size < MAX_PENDING_KEYS) this.pending.set(key, row);
      return;
    }
    entry.count += row.count;
    if (row.firstAt < entry.firstAt) entry.firstAt = row.firstAt;
    if (row.lastAt > entry.lastAt) entry.lastAt = row.lastAt;
  }
}

/** The process's counters: one for the default client, one per client tests pass. On globalThis (Next bundles two module copies). */
const globalForCounters = globalThis as unknown as { acreditaRejectionCounters?: { byDb: WeakMap<Db, RejectionCounter>; all: Set<RejectionCounter>; default?: RejectionCounter } };

function counters() {
  globalForCounters.acreditaRejectionCounters ??= { byDb: new WeakMap(), all: new Set() };
  return globalForCounters.acreditaRejectionCounters;
}

function counterOptions() {
  const config = settings();
  return { samplePerMinute: config.REJECTION_SAMPLE_PER_MINUTE, flushIntervalMs: config.REJECTION_FLUSH_INTERVAL_MS };
}

/** The counter that writes to `database` (default: the process's client, opened when it first flushes). */
export function rejectionCounter(database?: Db): RejectionCounter {
  const registry = counters();
  if (!database) {
    registry.default ??= new RejectionCounter(defaultDb, counterOptions());
    registry.all.add(registry.default);
    return registry.default;
  }
  let counter = registry.byDb.get(database);
  if (!counter) {
    counter = new RejectionCounter(() => Promise.resolve(database), counterOptions());
    registry.byDb.set(database, counter);
    registry.all.add(counter);
  }
  return counter;
}

/** Writes every counter's pending counts now: on shutdown, and in tests before reading RejectionCount. Never throws. */
export async function flushRejectionCounts(): Promise<void> {
  await Promise.all([...counters().all].map((counter) => counter.flush()));
}

/**
 * Records one refusal that came before a valid signature: counts it under its configured endpoint (or
 * {@link UNKNOWN_ENDPOINT}), code and UTC minute (written in the next batch, not now), and, for the first
 * REJECTION_SAMPLE_PER_MINUTE of that key and minute, also stores it in full as an unverified decision
 * row with its reason and diagnosis (awaited, so the row is there when the answer leaves). Never throws:
 * a database failure is logged. `database` is the client to write to (default: the process's).
 */
export async function recordPreSignatureRejection(database: Db | undefined, rejection: PreSignatureRejection, now: Date = new Date()): Promise<void> {
  const endpoint = rejection.endpoint ?? UNKNOWN_ENDPOINT;
  const sampled = rejectionCounter(database).count({ endpoint, provider: rejection.provider, reason: rejection.code, httpStatus: rejection.httpStatus }, now);
  if (!sampled) return;
  let client: Db;
  try {
    client = database ?? (await defaultDb());
  } catch (error) {
    logger.error({ err: errorMessage(error), httpStatus: rejection.httpStatus }, "decision not stored: database unavailable");
    return;
  }
  await recordDecisionSafely(client, {
    organizationId: rejection.organizationId ?? DEFAULT_ORGANIZATION.id,
    provider: rejection.provider,
    endpoint: rejection.endpoint ?? rejection.requestedName.slice(0, 100),
    eventId: rejection.eventId,
    verified: false,
    outcome: "rejected",
    httpStatus: rejection.httpStatus,
    reason: rejection.reason,
    reasonRef: rejection.reasonRef,
    diagnosis: rejection.diagnosis,
    diagnosisRef: rejection.diagnosisRef,
    secretLabel: rejection.secretLabel,
  });
}

/** How long a stopping process may wait for its last flush before it exits anyway (ms). */
const EXIT_FLUSH_DEADLINE_MS = 3_000;

/**
 * Writes the pending refusal counts when the process is asked to stop (SIGTERM, SIGINT) and before it
 * exits on its own. Next.js's own signal handler closes the server and then calls `process.exit`,
 * which would cut the write short, so from the signal on `process.exit` waits for that flush (at most
 * 3 s) before exiting with the same code. A process killed outright (SIGKILL, crash, power loss)
 * loses the counts of at most one REJECTION_FLUSH_INTERVAL_MS; sampled decision rows are already
 * written. Installed once per process (the Next.js server's instrumentation.ts; `npm run receiver`
 * flushes itself before closing the database).
 */
export function flushRejectionCountsOnExit(): void {
  const flags = globalThis as unknown as { acreditaRejectionFlushOnExit?: boolean };
  if (flags.acreditaRejectionFlushOnExit) return;
  flags.acreditaRejectionFlushOnExit = true;
  const onSignal = () => {
    const flushed = Promise.race([flushRejectionCounts(), new Promise<void>((resolve) => setTimeout(resolve, EXIT_FLUSH_DEADLINE_MS).unref())]);
    const exit = process.exit.bind(process);
    process.exit = ((code?: number | string | null) => {
      void flushed.finally(() => exit(code));
    }) as typeof process.exit;
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, onSignal);
  process.once("beforeExit", () => void flushRejectionCounts());
}
