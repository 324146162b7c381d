import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { applySqliteMigrations } from "@/lib/db/apply-migrations";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";

/** The lab secret every benchmark signs with (a throwaway value: benchmark databases are temporary). */
export const BENCH_SECRET = "bench_lab_secret_2026";
export const BENCH_API_TOKEN = "bench-api-token-0123456789abcdef-2026";
export const BENCH_AUTH_SECRET = "bench-auth-secret-0123456789abcdef-2026";

const folders: string[] = [];

/** A new temporary folder for one benchmark run's files; {@link removeBenchFolders} deletes it. */
export function benchFolder(label: string): string {
  const folder = mkdtempSync(path.join(tmpdir(), `acredita-bench-${label}-`));
  folders.push(folder);
  return folder;
}

/** Deletes every folder {@link benchFolder} made in this process (a full run writes several GB of databases). */
export function removeBenchFolders(): void {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
}

/** A new SQLite file in `folder` with Acredita's committed migrations applied (WAL). Returns its path. */
export function createBenchDatabase(folder: string, name = "acredita.db"): string {
  const file = path.join(folder, name);
  applySqliteMigrations(file);
  return file;
}

/** Prisma's SQLite DateTime text (ISO 8601 with an explicit UTC offset), as the app writes it. */
export function prismaDate(date: Date): string {
  return date.toISOString().replace("Z", "+00:00");
}

/** Opens a benchmark database for bulk loading: WAL, and synchronous OFF while generating data only. */
export function openForLoading(file: string): Database.Database {
  const database = new Database(file);
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = OFF");
  return database;
}

/** Inserts `count` orders `${prefix}${i}` (i from 0) in created state, in one transaction. */
export function seedOrders(file: string, prefix: string, count: number, amount: number, currency = "ARS"): void {
  const database = openForLoading(file);
  try {
    const insert = database.prepare(`INSERT INTO "Order" (id, amount, currency, status, createdAt, updatedAt) VALUES (?, ?, ?, 'created', ?, ?)`);
    const now = prismaDate(new Date());
    database.transaction(() => {
      for (let i = 0; i < count; i++) insert.run(`${prefix}${i}`, amount, currency, now, now);
    })();
  } finally {
    database.close();
  }
}

/** One signed lab delivery, ready to post. */
export interface SignedDelivery {
  body: string;
  signature: string;
}

/**
 * `count` signed lab approvals: event `${eventPrefix}${i}` pays order `${orderPrefix}${i}` (payment
 * `pay_${eventPrefix}${i}`) for `amount` ARS. Signed now: post them within the 300 s tolerance.
 */
export function labApprovals(eventPrefix: string, orderPrefix: string, count: number, amount: number, secret = BENCH_SECRET): SignedDelivery[] {
  const t = Math.floor(Date.now() / 1000);
  return Array.from({ length: count }, (_, i) => {
    const body = JSON.stringify({ id: `${eventPrefix}${i}`, type: "payment.approved", created: t, data: { payment_id: `pay_${eventPrefix}${i}`, order_id: `${orderPrefix}${i}`, amount, currency: "ARS" } });
    return { body, signature: signTimestamped(secret, t, body) };
  });
}

/** Row counts of the tables a delivery touches (Acredita's schema). */
export function acreditaCounts(file: string): { events: number; ledger: number; paidOrders: number; decisions: number; deadLetters: number } {
  const database = new Database(file, { readonly: true });
  try {
    const count = (sql: string) => (database.prepare(sql).get() as { n: number }).n;
    return {
      events: count(`SELECT COUNT(*) AS n FROM WebhookEvent`),
      ledger: count(`SELECT COUNT(*) AS n FROM LedgerEntry`),
      paidOrders: count(`SELECT COUNT(*) AS n FROM "Order" WHERE status = 'paid'`),
      decisions: count(`SELECT COUNT(*) AS n FROM Decision`),
      deadLetters: count(`SELECT COUNT(*) AS n FROM DeadLetter`),
    };
  } finally {
    database.close();
  }
}
