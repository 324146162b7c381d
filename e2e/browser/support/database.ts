// Direct reads of the test server's own temporary SQLite file, for exact assertions (row counts,
// attempts) that a page does not show. Read-only except `insertUncertainOutboxRow`.
import Database from "better-sqlite3";
import { assertLocalTarget, E2E } from "./e2e-env";

function open(readonly = true): Database.Database {
  assertLocalTarget();
  return new Database(E2E.databaseFile, { readonly, fileMustExist: true });
}

/** Runs one query and returns its rows (the database is closed again at once). */
export function query<T>(sql: string, ...params: unknown[]): T[] {
  const database = open();
  try {
    return database.prepare(sql).all(...params) as T[];
  } finally {
    database.close();
  }
}

/** The dead letter of an event. */
export function deadLetterOf(eventId: string): { id: string; status: string; attempts: number; owner: string | null; resolution: string | null } {
  const [row] = query<{ id: string; status: string; attempts: number; owner: string | null; resolution: string | null }>("SELECT id, status, attempts, owner, resolution FROM DeadLetter WHERE eventId = ?", eventId);
  if (!row) throw new Error(`no dead letter for ${eventId}`);
  return row;
}

/**
 * Inserts an outbox row marked uncertain: no HTTP path creates one yet (the outbox dispatcher is issue
 * 4's), and the review queue must be tested on one.
 */
export function insertUncertainOutboxRow(id: string, orderId: string): void {
  const database = open(false);
  try {
    const now = new Date().toISOString();
    database
      .prepare("INSERT INTO OutboxMessage (id, idempotencyKey, orderId, target, body, status, attempts, nextAttemptAt, lastError, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, 'uncertain', 1, ?, ?, ?, ?)")
      .run(id, `fulfil:${orderId}`, orderId, "https://merchant.example/fulfil", "{}", now, "timeout after send: the target may have acted", now, now);
  } finally {
    database.close();
  }
}
