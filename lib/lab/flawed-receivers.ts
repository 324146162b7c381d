import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { LAB_ORDERS } from "@/lib/demo/lab-orders";
import { LAB_SETTLEMENT, LAB_STEPS, labBody, type LabStep } from "@/lib/lab/scenario";
import { compareOrder, overcreditedByCurrency, type Mismatch } from "@/lib/reconciliation/compare";

/**
 * The seed article's two flawed receivers, kept ONLY for `npm run lab -- --compare`: they run in a
 * throwaway SQLite file and are never mounted in the app.
 * - naive: applies every delivery it gets (no signature check, no dedupe, no transition table).
 * - look-up-then-mark: skips an event id it has seen, else applies it and then marks it seen; the look-up
 *   and the mark are separate round trips, so two deliveries at once both pass the look-up.
 */
export type FlawedReceiverName = "naive" | "look-up-then-mark";

export interface ComparisonRow {
  receiver: string;
  scenarios: string;
  mismatches: number;
  orders: number;
  overcredited: Record<string, number>;
}

type Lab = { body: string };

class ThrowawayStore {
  private readonly folder = mkdtempSync(path.join(tmpdir(), "acredita-flawed-"));
  readonly db = new Database(path.join(this.folder, "flawed.db"));
  constructor() {
    this.db.exec("CREATE TABLE orders (id TEXT PRIMARY KEY, status TEXT, amount INTEGER, currency TEXT, credited INTEGER DEFAULT 0); CREATE TABLE seen (event_id TEXT)");
    const insert = this.db.prepare("INSERT INTO orders (id, status, amount, currency) VALUES (?, 'created', ?, ?)");
    for (const order of LAB_ORDERS) insert.run(order.id, order.amount, order.currency);
  }
  /** One database round trip: the statement runs, then control returns to the event loop as real I/O would. */
  async roundTrip<T>(work: () => T): Promise<T> {
    const result = work();
    await new Promise((resolve) => setImmediate(resolve));
    return result;
  }
  close(): void {
    this.db.close();
    rmSync(this.folder, { recursive: true, force: true });
  }
}

async function applyNaively(store: ThrowawayStore, delivery: Lab): Promise<void> {
  const event = JSON.parse(delivery.body) as { type: string; data: { order_id: string; amount: number } };
  const delta = event.type === "payment.approved" ? event.data.amount : -event.data.amount;
  const status = event.type === "payment.approved" ? "paid" : "refunded";
  await store.roundTrip(() => store.db.prepare("UPDATE orders SET status = ?, credited = credited + ? WHERE id = ?").run(status, delta, event.data.order_id));
}

async function lookUpThenMark(store: ThrowawayStore, delivery: Lab): Promise<void> {
  const { id } = JSON.parse(delivery.body) as { id: string };
  const seen = await store.roundTrip(() => store.db.prepare("SELECT 1 FROM seen WHERE event_id = ?").get(id));
  if (seen) return;
  await applyNaively(store, delivery);
  await store.roundTrip(() => store.db.prepare("INSERT INTO seen (event_id) VALUES (?)").run(id));
}

/**
 * Plays the lab's deliveries (only `scenarios`) against one flawed receiver, in the same order and
 * concurrency as the real lab (both answer 200 to everything, so the provider never retries), then
 * reconciles the touched orders against the lab settlement. Returns one comparison row.
 */
export async function runFlawedReceiver(name: FlawedReceiverName, scenarios: number[]): Promise<ComparisonRow> {
  const store = new ThrowawayStore();
  try {
    const handle = name === "naive" ? applyNaively : lookUpThenMark;
    const steps = LAB_STEPS.filter((step: LabStep) => scenarios.includes(step.scenario)).sort((a, b) => a.atSeconds - b.atSeconds);
    for (const step of steps) {
      const body = labBody(step);
      await Promise.all(Array.from({ length: step.concurrent ?? 1 }, () => handle(store, { body })));
    }
    const orderIds = new Set(steps.map((step) => step.event.orderId));
    const mismatches: Mismatch[] = [];
    for (const row of LAB_SETTLEMENT.filter((settled) => orderIds.has(settled.orderId))) {
      const found = store.db.prepare("SELECT status, credited, currency FROM orders WHERE id = ?").get(row.orderId) as { status: string; credited: number; currency: string };
      const mismatch = compareOrder(row.orderId, row, found);
      if (mismatch) mismatches.push(mismatch);
    }
    const overcredited = { ARS: 0, ...overcreditedByCurrency(mismatches) };
    return { receiver: name, scenarios: scenarios.join(","), mismatches: mismatches.length, orders: orderIds.size, overcredited };
  } finally {
    store.close();
  }
}
