import { randomBytes } from "node:crypto";
import { openForLoading, prismaDate } from "@/bench/bench-data";

/** What {@link generateScaleData} wrote. */
export interface ScaleData {
  orders: number;
  decisions: number;
  ledgerEntries: number;
  events: number;
  seconds: number;
}

const OUTCOMES = ["applied", "duplicate", "rejected", "dead_lettered", "ignored"] as const;
const DAY_MS = 86_400_000;

/** A cuid-like unique id (25 chars): the shape Prisma's default ids have, so indexes see realistic keys. */
function rowId(prefix: string, n: number): string {
  return `c${prefix}${n.toString(36).padStart(8, "0")}${randomBytes(6).toString("hex")}`;
}

/** The e-mail of order i's customer: one customer per four orders (the search bench finds a customer's orders). */
export function customerEmail(i: number, orders: number): string {
  return `customer${i % Math.max(1, Math.floor(orders / 4))}@example.com`;
}

/**
 * Fills a migrated benchmark database with a merchant's history, for the dashboard-at-scale benchmark:
 * `orders` orders `ord_000000..` (70% paid, 10% refunded, 20% created; ARS, USD and BRL; spread over
 * 90 days), one credit per paid or refunded order and one refund per refunded order, one stored event
 * per ledger entry (with its charge id and the customer's e-mail, one customer per four orders), and `decisionsPerOrder` decision rows per order (mixed outcomes and providers,
 * verified or not). Bulk-loads with better-sqlite3 (synchronous OFF: generated data, not deliveries).
 */
export function generateScaleData(file: string, options: { orders: number; decisionsPerOrder: number; now?: Date }): ScaleData {
  const started = Date.now();
  const now = (options.now ?? new Date()).getTime();
  const database = openForLoading(file);
  const insertOrder = database.prepare(
    `INSERT INTO "Order" (id, amount, currency, status, refundedAmount, lastEventAt, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertLedger = database.prepare(
    `INSERT INTO LedgerEntry (id, businessKey, orderId, paymentKey, kind, amount, currency, provider, account, livemode, eventId, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?, 'lab', 'lab', 1, ?, ?)`,
  );
  const insertEvent = database.prepare(
    `INSERT INTO WebhookEvent (id, provider, endpoint, account, livemode, eventId, type, bodyHash, orderId, paymentKey, customerEmail, chargeId, status, payload, attempts, receivedAt, processedAt) VALUES (?, 'lab', 'lab', 'lab', 1, ?, ?, ?, ?, ?, ?, ?, 'processed', '{}', 1, ?, ?)`,
  );
  const insertDecision = database.prepare(
    `INSERT INTO Decision (id, at, provider, endpoint, eventId, verified, eventType, orderId, outcome, httpStatus, reason, source) VALUES (?, ?, ?, ?, ?, ?, 'payment.approved', ?, ?, ?, ?, 'receiver')`,
  );
  let ledgerEntries = 0;
  let events = 0;
  let decisions = 0;
  const currencies = ["ARS", "ARS", "ARS", "USD", "BRL"];
  const batch = database.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const id = `ord_${String(i).padStart(6, "0")}`;
      const created = now - Math.floor(((options.orders - i) / options.orders) * 90 * DAY_MS);
      const roll = i % 10;
      const status = roll < 7 ? "paid" : roll < 8 ? "refunded" : "created";
      const amount = 1_000 + ((i * 7919) % 5_000_000);
      const currency = currencies[i % currencies.length];
      const eventAt = status === "created" ? null : created + 60_000;
      insertOrder.run(id, amount, currency, status, status === "refunded" ? amount : 0, eventAt ? prismaDate(new Date(eventAt)) : null, prismaDate(new Date(created)), prismaDate(new Date(eventAt ?? created)));
      if (status !== "created") {
        const at = prismaDate(new Date(eventAt!));
        insertLedger.run(rowId("l", ledgerEntries++), `credit:lab:lab:live:pay_${i}`, id, `pay_${i}`, "credit", amount, currency, `evt_${i}_a`, at);
        insertEvent.run(rowId("e", events++), `evt_${i}_a`, "payment.approved", randomBytes(32).toString("hex"), id, `pay_${i}`, customerEmail(i, options.orders), `ch_${i}`, at, at);
        if (status === "refunded") {
          insertLedger.run(rowId("l", ledgerEntries++), `refund:lab:lab:live:pay_${i}`, id, `pay_${i}`, "refund", -amount, currency, `evt_${i}_r`, at);
          insertEvent.run(rowId("e", events++), `evt_${i}_r`, "payment.refunded", randomBytes(32).toString("hex"), id, `pay_${i}`, customerEmail(i, options.orders), `ch_${i}`, at, at);
        }
      }
      for (let d = 0; d < options.decisionsPerOrder; d++) {
        const outcome = OUTCOMES[(i + d) % OUTCOMES.length];
        const verified = outcome === "rejected" && d % 2 === 0 ? 0 : 1;
        const httpStatus = outcome === "rejected" ? 401 : outcome === "dead_lettered" ? 409 : 200;
        const provider = d % 3 === 0 ? "stripe" : "lab";
        insertDecision.run(rowId("d", decisions++), prismaDate(new Date(created + d * 1_000)), provider, provider, `evt_${i}_${d}`, verified, id, outcome, httpStatus, `${outcome} (generated)`);
      }
    }
  });
  for (let from = 0; from < options.orders; from += 5_000) batch(from, Math.min(options.orders, from + 5_000));
  database.pragma("wal_checkpoint(TRUNCATE)");
  database.close();
  return { orders: options.orders, decisions, ledgerEntries, events, seconds: (Date.now() - started) / 1_000 };
}
