// The bare-SQL apply limit: the same logical apply as Acredita's inbox worker for a lab `payment`
// event (lib/inbox/apply-claimed-events.ts -> lib/apply/apply-stored-event.ts -> lib/apply/apply-effect.ts),
// written directly on the drivers with cached prepared statements, on Acredita's own schema. Per event
// it writes exactly the rows the worker writes:
//   1. the claim (WebhookEvent: processing, lease, dueAt = lease expiry, attempts + 1), its own commit;
//   2. in the apply transaction: the lease guard (WebhookEvent), a read of the order, the ledger credit
//      under its UNIQUE business key (INSERT ... ON CONFLICT DO NOTHING RETURNING: no read first), the
//      guarded order transition (created -> paid, guarded by status and refundedAmount), the Delivery
//      row (UNIQUE orderId), the event marked processed, the open dead letters of the event resolved
//      (none here: an indexed UPDATE that matches nothing), the parked events of the order woken (none:
//      same), and the decision row.
// No outbox message: the bench runs without FULFILMENT_WEBHOOK_URL, as the worker does there.
// Shapes: one transaction per event; or a batch of up to 64 claimed in one statement and applied in one
// transaction with a SAVEPOINT per event (an event that fails rolls back alone). SQLite: better-sqlite3,
// WAL + synchronous=FULL. PostgreSQL: `pg` with named prepared statements.
import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { labApprovals, prismaDate } from "@/bench/bench-data";
import { newRowId } from "@/lib/db/row-id";
import { storedEventData, type VerifiedDelivery } from "@/lib/ingest/delivery";
import { creditKey } from "@/lib/core/business-keys";
import { nextStatus } from "@/lib/core/order-transitions";
import { labProvider } from "@/lib/providers/lab";
import type { NormalizedEvent } from "@/lib/core/effect";

/** The lab endpoint as the bench configures it (provider lab, account lab, live). */
const LAB_ENDPOINT = { name: "lab", provider: "lab", account: "lab", livemode: true } as unknown as VerifiedDelivery["endpoint"];
const LAB_SECRET_LABEL = "LAB_WEBHOOK_SECRET[0]";
const LEASE_MS = 30_000;

/** Columns of a pending inbox row, in the order the receiver's group commit writes them (lib/ingest/inbox-group-commit.ts). */
export const INBOX_COLUMNS = ["id", "provider", "endpoint", "account", "livemode", "eventId", "type", "bodyHash", "orderId", "paymentKey", "payload", "secretLabel", "status", "attempts", "nextAttemptAt", "dueAt", "receivedAt"] as const;
export type InboxRow = ReturnType<typeof pendingInboxRows>[number];

/**
 * `count` pending inbox rows exactly as the receiver stores them for signed lab approvals: event
 * `${eventPrefix}${i}` pays order `${orderPrefix}${i}` `amount` ARS; each row is the receiver's
 * {@link storedEventData} of the parsed, verified delivery (status received, due at `now`), with a
 * ULID id and the body's SHA-256. Throws when the lab provider refuses a body.
 */
export function pendingInboxRows(eventPrefix: string, orderPrefix: string, count: number, amount: number, now = new Date()) {
  return labApprovals(eventPrefix, orderPrefix, count, amount).map(({ body }) => {
    const parsed = labProvider.parse({ body: Buffer.from(body), headers: new Headers(), now: Math.floor(now.getTime() / 1000) } as never, {} as never, {} as never);
    if (!parsed.ok) throw new Error(`lab provider refused a bench body: ${parsed.reason}`);
    const delivery: VerifiedDelivery = { endpoint: LAB_ENDPOINT, event: parsed.event, bodyHash: createHash("sha256").update(body).digest("hex"), secretLabel: LAB_SECRET_LABEL };
    return { id: newRowId(now), ...storedEventData(delivery, { status: "received", attempts: 0, nextAttemptAt: now }), receivedAt: now };
  });
}

/** Writes pending inbox rows into a SQLite file as Prisma writes them (DateTime as Prisma's text, booleans 0/1). */
export function fillSqliteInbox(file: string, rows: InboxRow[]): void {
  const database = new Database(file);
  try {
    database.pragma("journal_mode = WAL");
    database.pragma("synchronous = OFF");
    const insert = database.prepare(`INSERT INTO "WebhookEvent" (${INBOX_COLUMNS.map((c) => `"${c}"`).join(", ")}) VALUES (${INBOX_COLUMNS.map(() => "?").join(", ")})`);
    database.transaction(() => {
      for (const row of rows) insert.run(...INBOX_COLUMNS.map((column) => sqliteValue(row[column])));
    })();
  } finally {
    database.close();
  }
}

/** Writes pending inbox rows into a PostgreSQL database (1,000 rows a statement). */
export async function fillPostgresInbox(url: string, rows: InboxRow[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let i = 0; i < rows.length; i += 1_000) {
      const chunk = rows.slice(i, i + 1_000);
      const values = chunk.flatMap((row) => INBOX_COLUMNS.map((column) => row[column]));
      const tuples = chunk.map((_, r) => `(${INBOX_COLUMNS.map((__, c) => `$${r * INBOX_COLUMNS.length + c + 1}`).join(", ")})`);
      await client.query(`INSERT INTO "WebhookEvent" (${INBOX_COLUMNS.map((c) => `"${c}"`).join(", ")}) VALUES ${tuples.join(", ")}`, values);
    }
  } finally {
    await client.end();
  }
}

function sqliteValue(value: unknown): unknown {
  if (value instanceof Date) return prismaDate(value);
  if (typeof value === "boolean") return value ? 1 : 0;
  return value ?? null;
}

/** One claimed event as the limit reads it back from the claim's RETURNING. */
interface Claimed {
  id: string;
  provider: string;
  endpoint: string;
  account: string;
  livemode: boolean;
  eventId: string;
  type: string;
  bodyHash: string;
  payload: string;
  secretLabel: string | null;
}

interface OrderRow {
  id: string;
  livemode: boolean | number;
  amount: number;
  currency: string;
  status: string;
  refundedAmount: number;
}

/** What a run of the limit did. */
export interface LimitRun {
  shape: "per-event" | "batched";
  database: "sqlite" | "postgresql";
  batch: number;
  events: number;
  seconds: number;
  perSecond: number;
  /** Events whose apply failed and were rolled back to their savepoint (0 in the bench: every order exists). */
  failed: number;
}

/** The decision reason the worker writes for a credited payment (lib/apply/apply-effect.ts). */
function creditedReason(order: OrderRow, to: string): string {
  return `credited ${order.amount} ${order.currency}; order ${order.id} ${order.status} -> ${to}`;
}

/** A failure inside one event's apply: the event's savepoint is rolled back, the batch goes on. */
class LimitApplyFailure extends Error {}

const CLAIM_RETURNING = `"id", "provider", "endpoint", "account", "livemode", "eventId", "type", "bodyHash", "payload", "secretLabel"`;

/**
 * Runs the limit on a SQLite file holding a filled inbox until nothing is due: claims `batch` events
 * at a time (one statement, its own commit) and applies them in one `BEGIN IMMEDIATE` transaction, a
 * SAVEPOINT per event when `batch` > 1. WAL + synchronous=FULL, every statement prepared once.
 * Returns the events applied and the rate; throws on a database error outside an event's apply.
 */
export function runSqliteLimit(file: string, batch: number, owner = "limit"): LimitRun {
  const database = new Database(file);
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = FULL");
  database.pragma("busy_timeout = 5000");
  const s = {
    claim: database.prepare(
      `UPDATE "WebhookEvent" SET "status" = 'processing', "leaseOwner" = ?, "leaseExpiresAt" = ?, "dueAt" = ?, "attempts" = "attempts" + 1
       WHERE "id" IN (SELECT "id" FROM "WebhookEvent" WHERE "dueAt" <= ? ORDER BY "dueAt" ASC, "receivedAt" ASC LIMIT ?) AND "dueAt" <= ?
       RETURNING ${CLAIM_RETURNING}`,
    ),
    guard: database.prepare(`UPDATE "WebhookEvent" SET "leaseOwner" = ? WHERE "id" = ? AND "status" = 'processing' AND "leaseOwner" = ?`),
    order: database.prepare(`SELECT "id", "livemode", "amount", "currency", "status", "refundedAmount" FROM "Order" WHERE "id" = ?`),
    credit: database.prepare(
      `INSERT INTO "LedgerEntry" ("id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "account", "livemode", "eventId", "createdAt")
       VALUES (?, ?, ?, ?, 'credit', ?, ?, ?, ?, ?, ?, ?) ON CONFLICT ("businessKey") DO NOTHING RETURNING "id"`,
    ),
    transition: database.prepare(`UPDATE "Order" SET "status" = ?, "lastEventAt" = ?, "updatedAt" = ? WHERE "id" = ? AND "status" = ? AND "refundedAmount" = ?`),
    delivery: database.prepare(`INSERT INTO "Delivery" ("id", "orderId", "paymentKey", "provider", "eventId", "createdAt") VALUES (?, ?, ?, ?, ?, ?)`),
    done: database.prepare(
      `UPDATE "WebhookEvent" SET "status" = 'processed', "processedAt" = ?, "orderId" = ?, "lastError" = NULL, "nextAttemptAt" = NULL, "dueAt" = NULL, "leaseOwner" = NULL, "leaseExpiresAt" = NULL WHERE "id" = ?`,
    ),
    resolveDead: database.prepare(`UPDATE "DeadLetter" SET "status" = 'resolved', "resolution" = ?, "resolvedBy" = 'system', "resolvedAt" = ? WHERE "dedupeKey" = ? AND "status" = 'open'`),
    wake: database.prepare(
      `UPDATE "WebhookEvent" SET "nextAttemptAt" = ?, "dueAt" = ? WHERE "status" = 'failed' AND "nextAttemptAt" > ? AND ("orderId" = ? OR ("paymentKey" = ? AND "provider" = ? AND "account" = ? AND "livemode" = ?))`,
    ),
    decision: database.prepare(
      `INSERT INTO "Decision" ("id", "at", "provider", "endpoint", "eventId", "verified", "eventType", "orderId", "outcome", "httpStatus", "reason", "secretLabel", "diagnosis", "source")
       VALUES (?, ?, ?, ?, ?, 1, ?, ?, 'applied', NULL, ?, ?, NULL, 'worker')`,
    ),
  };
  const begin = database.prepare("BEGIN IMMEDIATE");
  const commit = database.prepare("COMMIT");
  const rollback = database.prepare("ROLLBACK");
  const savepoint = database.prepare("SAVEPOINT event");
  const release = database.prepare("RELEASE event");
  const rollbackTo = database.prepare("ROLLBACK TO event");

  function applyOne(event: Claimed, now: Date): void {
    const at = prismaDate(now);
    if (s.guard.run(owner, event.id, owner).changes !== 1) throw new LimitApplyFailure("lease lost");
    const normalized = JSON.parse(event.payload) as NormalizedEvent;
    if (normalized.effect.kind !== "payment") throw new LimitApplyFailure(`the limit applies payments only, got ${normalized.effect.kind}`);
    const effect = normalized.effect;
    const order = s.order.get(effect.orderRef.orderId) as OrderRow | undefined;
    if (!order) throw new LimitApplyFailure(`unknown order ${effect.orderRef.orderId}`);
    const to = nextStatus(order.status, "payment.approved");
    if (!to || effect.amount !== order.amount || effect.currency?.toUpperCase() !== order.currency.toUpperCase()) throw new LimitApplyFailure(`payment does not apply to order ${order.id}`);
    const scope = { provider: event.provider, account: event.account, livemode: Boolean(event.livemode) };
    const credited = s.credit.get(newRowId(now), creditKey(scope, effect.paymentKey), order.id, effect.paymentKey, order.amount, order.currency, event.provider, event.account, 1, event.eventId, at);
    if (!credited) throw new LimitApplyFailure(`payment ${effect.paymentKey} already credited`);
    if (s.transition.run(to, at, at, order.id, order.status, order.refundedAmount).changes !== 1) throw new LimitApplyFailure(`order ${order.id} changed concurrently`);
    s.delivery.run(newRowId(now), order.id, effect.paymentKey, event.provider, event.eventId, at);
    s.done.run(at, order.id, event.id);
    s.resolveDead.run("applied on a later attempt (applied)", at, `${event.provider}:${event.account}:${scope.livemode ? "live" : "test"}:${event.eventId}:${event.bodyHash}`);
    s.wake.run(at, at, at, order.id, effect.paymentKey, event.provider, event.account, 1);
    s.decision.run(newRowId(now), at, event.provider, event.endpoint, event.eventId, event.type, order.id, creditedReason(order, to), event.secretLabel);
  }

  let events = 0;
  let failed = 0;
  const started = performance.now();
  try {
    for (;;) {
      const now = new Date();
      const lease = prismaDate(new Date(now.getTime() + LEASE_MS));
      const claimed = s.claim.all(owner, lease, lease, prismaDate(now), batch, prismaDate(now)) as Claimed[];
      if (claimed.length === 0) break;
      begin.run();
      try {
        if (batch === 1) {
          applyOne(claimed[0], now);
        } else {
          for (const event of claimed) {
            savepoint.run();
            try {
              applyOne(event, now);
              release.run();
            } catch (error) {
              if (!(error instanceof LimitApplyFailure)) throw error;
              rollbackTo.run();
              release.run();
              failed++;
            }
          }
        }
        commit.run();
        events += claimed.length;
      } catch (error) {
        if (database.inTransaction) rollback.run();
        if (batch === 1 && error instanceof LimitApplyFailure) {
          failed++;
          continue;
        }
        throw error;
      }
    }
  } finally {
    database.close();
  }
  const seconds = (performance.now() - started) / 1_000;
  // A batch's failed events were rolled back to their savepoints inside a committed batch: not applied.
  const applied = batch === 1 ? events : events - failed;
  return { shape: batch === 1 ? "per-event" : "batched", database: "sqlite", batch, events: applied, seconds, perSecond: applied / seconds, failed };
}

/**
 * The same limit on PostgreSQL with one `pg` connection and named prepared statements: the claim is
 * `FOR UPDATE SKIP LOCKED` in a CTE and the UPDATE of the same statement (its own commit), then one
 * transaction per event or per batch with a SAVEPOINT per event. Returns the events applied and the
 * rate; throws on a database error outside an event's apply.
 */
export async function runPostgresLimit(url: string, batch: number, owner = "limit"): Promise<LimitRun> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const q = (name: string, text: string) => (values: unknown[]) => client.query({ name, text, values });
  const s = {
    claim: q(
      "limit_claim",
      `WITH next AS (SELECT "id" FROM "WebhookEvent" WHERE "dueAt" <= $1 ORDER BY "dueAt" ASC, "receivedAt" ASC LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE "WebhookEvent" AS e SET "status" = 'processing', "leaseOwner" = $3, "leaseExpiresAt" = $4, "dueAt" = $4, "attempts" = e."attempts" + 1
       FROM next WHERE e."id" = next."id"
       RETURNING ${CLAIM_RETURNING.split(", ").map((c) => `e.${c}`).join(", ")}`,
    ),
    guard: q("limit_guard", `UPDATE "WebhookEvent" SET "leaseOwner" = $1 WHERE "id" = $2 AND "status" = 'processing' AND "leaseOwner" = $1`),
    order: q("limit_order", `SELECT "id", "livemode", "amount", "currency", "status", "refundedAmount" FROM "Order" WHERE "id" = $1`),
    credit: q(
      "limit_credit",
      `INSERT INTO "LedgerEntry" ("id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "account", "livemode", "eventId", "createdAt")
       VALUES ($1, $2, $3, $4, 'credit', $5, $6, $7, $8, $9, $10, $11) ON CONFLICT ("businessKey") DO NOTHING RETURNING "id"`,
    ),
    transition: q("limit_transition", `UPDATE "Order" SET "status" = $1, "lastEventAt" = $2, "updatedAt" = $2 WHERE "id" = $3 AND "status" = $4 AND "refundedAmount" = $5`),
    delivery: q("limit_delivery", `INSERT INTO "Delivery" ("id", "orderId", "paymentKey", "provider", "eventId", "createdAt") VALUES ($1, $2, $3, $4, $5, $6)`),
    done: q(
      "limit_done",
      `UPDATE "WebhookEvent" SET "status" = 'processed', "processedAt" = $1, "orderId" = $2, "lastError" = NULL, "nextAttemptAt" = NULL, "dueAt" = NULL, "leaseOwner" = NULL, "leaseExpiresAt" = NULL WHERE "id" = $3`,
    ),
    resolveDead: q("limit_resolve_dead", `UPDATE "DeadLetter" SET "status" = 'resolved', "resolution" = $1, "resolvedBy" = 'system', "resolvedAt" = $2 WHERE "dedupeKey" = $3 AND "status" = 'open'`),
    wake: q(
      "limit_wake",
      `UPDATE "WebhookEvent" SET "nextAttemptAt" = $1, "dueAt" = $1 WHERE "status" = 'failed' AND "nextAttemptAt" > $1 AND ("orderId" = $2 OR ("paymentKey" = $3 AND "provider" = $4 AND "account" = $5 AND "livemode" = $6))`,
    ),
    decision: q(
      "limit_decision",
      `INSERT INTO "Decision" ("id", "at", "provider", "endpoint", "eventId", "verified", "eventType", "orderId", "outcome", "httpStatus", "reason", "secretLabel", "diagnosis", "source")
       VALUES ($1, $2, $3, $4, $5, true, $6, $7, 'applied', NULL, $8, $9, NULL, 'worker')`,
    ),
  };

  async function applyOne(event: Claimed, now: Date): Promise<void> {
    if ((await s.guard([owner, event.id])).rowCount !== 1) throw new LimitApplyFailure("lease lost");
    const normalized = JSON.parse(event.payload) as NormalizedEvent;
    if (normalized.effect.kind !== "payment") throw new LimitApplyFailure(`the limit applies payments only, got ${normalized.effect.kind}`);
    const effect = normalized.effect;
    const order = (await s.order([effect.orderRef.orderId])).rows[0] as OrderRow | undefined;
    if (!order) throw new LimitApplyFailure(`unknown order ${effect.orderRef.orderId}`);
    const to = nextStatus(order.status, "payment.approved");
    if (!to || effect.amount !== order.amount || effect.currency?.toUpperCase() !== order.currency.toUpperCase()) throw new LimitApplyFailure(`payment does not apply to order ${order.id}`);
    const scope = { provider: event.provider, account: event.account, livemode: event.livemode };
    const credited = await s.credit([newRowId(now), creditKey(scope, effect.paymentKey), order.id, effect.paymentKey, order.amount, order.currency, event.provider, event.account, event.livemode, event.eventId, now]);
    if (credited.rowCount !== 1) throw new LimitApplyFailure(`payment ${effect.paymentKey} already credited`);
    if ((await s.transition([to, now, order.id, order.status, order.refundedAmount])).rowCount !== 1) throw new LimitApplyFailure(`order ${order.id} changed concurrently`);
    await s.delivery([newRowId(now), order.id, effect.paymentKey, event.provider, event.eventId, now]);
    await s.done([now, order.id, event.id]);
    await s.resolveDead(["applied on a later attempt (applied)", now, `${event.provider}:${event.account}:${event.livemode ? "live" : "test"}:${event.eventId}:${event.bodyHash}`]);
    await s.wake([now, order.id, effect.paymentKey, event.provider, event.account, event.livemode]);
    await s.decision([newRowId(now), now, event.provider, event.endpoint, event.eventId, event.type, order.id, creditedReason(order, to), event.secretLabel]);
  }

  let events = 0;
  let failed = 0;
  const started = performance.now();
  try {
    for (;;) {
      const now = new Date();
      const claimed = (await s.claim([now, batch, owner, new Date(now.getTime() + LEASE_MS)])).rows as Claimed[];
      if (claimed.length === 0) break;
      await client.query("BEGIN");
      try {
        if (batch === 1) {
          await applyOne(claimed[0], now);
        } else {
          for (const event of claimed) {
            await client.query("SAVEPOINT event");
            try {
              await applyOne(event, now);
              await client.query("RELEASE SAVEPOINT event");
            } catch (error) {
              if (!(error instanceof LimitApplyFailure)) throw error;
              await client.query("ROLLBACK TO SAVEPOINT event");
              await client.query("RELEASE SAVEPOINT event");
              failed++;
            }
          }
        }
        await client.query("COMMIT");
        events += claimed.length;
      } catch (error) {
        await client.query("ROLLBACK");
        if (batch === 1 && error instanceof LimitApplyFailure) {
          failed++;
          continue;
        }
        throw error;
      }
    }
  } finally {
    await client.end();
  }
  const seconds = (performance.now() - started) / 1_000;
  const applied = batch === 1 ? events : events - failed;
  return { shape: batch === 1 ? "per-event" : "batched", database: "postgresql", batch, events: applied, seconds, perSecond: applied / seconds, failed };
}

/** Inserts `count` orders `${prefix}${i}` (created, `amount` ARS) into a PostgreSQL database, as seedOrders does on SQLite. */
export async function seedPostgresOrders(url: string, prefix: string, count: number, amount: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`INSERT INTO "Order" (id, amount, currency, "updatedAt") SELECT $1 || g, $3::int, 'ARS', now() FROM generate_series(0, $2::int - 1) AS g`, [prefix, count, amount]);
  } finally {
    await client.end();
  }
}
