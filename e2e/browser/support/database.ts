// Direct reads of a browser-test server's own temporary database (SQLite file, or the PostgreSQL test
// database on the PostgreSQL pass), for exact assertions (row counts, attempts) that a page does not
// show. Queries are written for SQLite; e2e/support/sql-reader.ts adapts them for PostgreSQL.
// Read-only except `insertUncertainOutboxRow`, `insertPastDecision`, `insertStripeAmountMismatch`,
// `setLedgerAmount`, `holdRunScope`, `addMembership`, `insertUser`, `insertAlertChannel` and `disableAlertChannels`. The functions exported here act on the shared server's database; `databaseOf`
// gives the same for a spec's own server (support/own-server.ts).
import { execFileSync } from "node:child_process";
import { expect } from "@playwright/test";
import Database from "better-sqlite3";
import { postgresBinDir } from "@/lib/db/postgres-cluster";
import { sqlReader, toPostgresSql } from "../../support/sql-reader";
import { assertLocalTarget, E2E } from "./e2e-env";

/** A browser-test server's database: its URL, and the SQLite file (undefined on PostgreSQL). */
export interface E2EDatabase {
  url: string;
  file?: string;
}

/** The database of the shared browser-test server (playwright.config.ts `webServer`). */
const SHARED: E2EDatabase = E2E.databaseUrl.startsWith("postgres") ? { url: E2E.databaseUrl } : { url: E2E.databaseUrl, file: E2E.databaseFile };

/**
 * The reads and seeding writes below, on `database` (checked to be a local throwaway database first).
 * Returns functions of the same names and shapes as this module's exports.
 */
export function databaseOf(database: E2EDatabase) {
  const onPostgres = database.url.startsWith("postgres");

  /** Runs one query and returns its rows (the connection is closed again at once). */
  function query<T>(sql: string, ...params: (string | number | boolean | null)[]): T[] {
    assertLocalTarget(E2E.baseURL, database.url);
    const reader = sqlReader(database);
    try {
      return reader.all<T>(sql, ...params);
    } finally {
      reader.close();
    }
  }

  /** Runs one writing statement (SQLite-flavoured, `?` parameters). */
  function execute(sql: string, ...params: (string | number | null)[]): void {
    assertLocalTarget(E2E.baseURL, database.url);
    if (onPostgres) {
      const bin = postgresBinDir();
      execFileSync(bin ? `${bin}/psql` : "psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", database.url, "-c", toPostgresSql(sql, params)], { encoding: "utf8" });
      return;
    }
    const connection = new Database(database.file!, { fileMustExist: true });
    try {
      connection.prepare(sql).run(...params);
    } finally {
      connection.close();
    }
  }

  /** The dead letter of an event. */
  function deadLetterOf(eventId: string): { id: string; status: string; attempts: number; owner: string | null; resolution: string | null } {
    const [row] = query<{ id: string; status: string; attempts: number; owner: string | null; resolution: string | null }>("SELECT id, status, attempts, owner, resolution FROM DeadLetter WHERE eventId = ?", eventId);
    if (!row) throw new Error(`no dead letter for ${eventId}`);
    return row;
  }

  /**
   * Inserts an outbox row marked uncertain (of `organizationId`, the default organization unless named):
   * no HTTP path creates one yet (no outbox dispatcher sends yet), and the review queue must be tested on one.
   */
  function insertUncertainOutboxRow(id: string, orderId: string, organizationId = "org_default"): void {
    const now = new Date().toISOString();
    execute(
      "INSERT INTO OutboxMessage (id, organizationId, idempotencyKey, orderId, target, body, status, attempts, nextAttemptAt, lastError, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, ?, 'uncertain', 1, ?, ?, ?, ?)",
      id,
      organizationId,
      `fulfil:${orderId}`,
      orderId,
      "https://merchant.example/fulfil",
      "{}",
      now,
      "timeout after send: the target may have acted",
      now,
      now,
    );
  }

  /**
   * Inserts a decision row dated `at` as the receiver writes one for a verified delivery: no HTTP path
   * can date a delivery days back (the signature's timestamp window), and the Endpoints page's rotation
   * status needs a secret that last matched days ago.
   */
  function insertPastDecision(id: string, endpoint: string, secretLabel: string, at: Date): void {
    execute(
      "INSERT INTO Decision (id, at, provider, endpoint, eventId, verified, eventType, outcome, httpStatus, reason, secretLabel, source) VALUES (?, ?, 'lab', ?, ?, ?, 'payment.approved', 'applied', 200, ?, ?, 'receiver')",
      id,
      // The text form Prisma's SQLite adapter writes (and compares against); PostgreSQL reads it too.
      at.toISOString().replace("Z", "+00:00"),
      endpoint,
      `evt_${id}`,
      onPostgres ? "true" : 1,
      "seeded: a delivery signed with the old secret",
      secretLabel,
    );
  }

  /**
   * Inserts an open dead letter of a Stripe amount mismatch as the core writes one: the browser server
   * has no Stripe endpoint (no secret), and the dead-letters page must link the payment's dashboard page.
   */
  function insertStripeAmountMismatch(eventId: string, orderId: string, paymentKey: string, livemode: boolean): void {
    const now = new Date().toISOString().replace("Z", "+00:00");
    const payload = JSON.stringify({ eventId, type: "payment_intent.succeeded", livemode, effect: { kind: "payment", paymentKey, orderRef: { orderId }, amount: 90_000, currency: "usd" } });
    const reasonParams = JSON.stringify({ orderId, paid: { amount: 90_000, currency: "USD" }, expected: { amount: 100_000, currency: "USD" } });
    execute(
      "INSERT INTO DeadLetter (id, dedupeKey, provider, endpoint, account, livemode, eventId, eventType, orderId, bodyHash, payload, category, reason, reasonCode, reasonParams, retryable, attempts, firstFailedAt, lastFailedAt, nextAction, status) VALUES (?, ?, 'stripe', 'stripe', 'acct_e2e', ?, ?, 'payment_intent.succeeded', ?, 'hash', ?, 'amount_mismatch', ?, 'amount_mismatch_payment', ?, ?, 1, ?, ?, 'review the payment against the order; refund or correct the order', 'open')",
      `dl_${eventId}`,
      `stripe:acct_e2e:${livemode ? "live" : "test"}:${eventId}:hash`,
      onPostgres ? String(livemode) : livemode ? 1 : 0,
      eventId,
      orderId,
      payload,
      `amount mismatch for order ${orderId}: payment 90000, order 100000 (USD minor units)`,
      reasonParams,
      onPostgres ? "false" : 0,
      now,
      now,
    );
  }

  /**
   * Sets a ledger entry's amount by hand (minor units), as a corrupted row would hold it: no HTTP path
   * writes a wrong amount, and the books check must be seen reporting one.
   */
  function setLedgerAmount(businessKey: string, amount: number): void {
    execute("UPDATE LedgerEntry SET amount = ? WHERE businessKey = ?", amount, businessKey);
  }

  /** Makes the user of `email` a member of the organization of `slug` with `role` (what `npm run create-user -- --org` does for a new user). */
  function addMembership(email: string, slug: string, role: string): void {
    execute("INSERT INTO Membership (userId, organizationId, role, createdAt) SELECT u.id, o.id, ?, ? FROM User u, Organization o WHERE u.email = ? AND o.slug = ?", role, new Date().toISOString(), email, slug);
  }

  /**
   * Inserts a user who can sign in with the password `passwordHash` was made from (better-auth's
   * `hashPassword`), a member of no organization yet (`addMembership` makes one): what `npm run
   * create-user -- --org` writes, without a process of its own per user.
   */
  function insertUser(id: string, email: string, name: string, passwordHash: string): void {
    const now = new Date().toISOString().replace("Z", "+00:00");
    execute("INSERT INTO User (id, name, email, emailVerified, role, banned, createdAt, updatedAt) VALUES (?, ?, ?, ?, 'merchant', ?, ?, ?)", id, name, email, onPostgres ? "true" : 1, onPostgres ? "false" : 0, now, now);
    execute("INSERT INTO Account (id, accountId, providerId, userId, password, createdAt, updatedAt) VALUES (?, ?, 'credential', ?, ?, ?, ?)", `acc_${id}`, id, id, passwordHash, now, now);
  }

  /**
   * Inserts an e-mail alert channel of the organization of `slug`: the API refuses one on a server
   * without SMTP_URL, and a webhook one would be sent the organization's incidents over the network.
   */
  function insertAlertChannel(id: string, slug: string, to: string): void {
    execute("INSERT INTO AlertChannel (id, organizationId, kind, \"to\", createdAt) SELECT ?, o.id, 'email', ?, ? FROM Organization o WHERE o.slug = ?", id, to, new Date().toISOString().replace("Z", "+00:00"), slug);
  }

  /** Disables every alert channel to `url` (as removing it does), so that no incident is ever sent there. */
  function disableAlertChannels(url: string): void {
    execute("UPDATE AlertChannel SET disabledAt = ?, secretCiphertext = NULL WHERE url = ?", new Date().toISOString().replace("Z", "+00:00"), url);
  }

  /** Resolves the dead letter of `eventId` as a person's resolution would (status and time only). */
  function resolveDeadLetter(eventId: string): void {
    execute(`UPDATE "DeadLetter" SET "status" = 'resolved', "resolvedAt" = ?, "resolvedBy" = 'e2e' WHERE "eventId" = ?`, new Date().toISOString(), eventId);
  }

  /**
   * Holds a reconciliation scope (`stripe:acct_x:live`) as a worker running a run of it would: a row
   * `running` under a lease ten minutes long, whose `activeScope` keeps every queued run of the scope
   * waiting (claimNextRun takes only runs whose scope is free). A run of a small file ends within a
   * second, before its page could be seen queued: held, an upload stays queued until `release()`
   * deletes the row, and the worker takes it at its next poll. Retries while another run of the scope
   * holds it (the UNIQUE activeScope).
   */
  async function holdRunScope(id: string, scopeKey: string): Promise<{ release: () => void }> {
    const [provider, account, mode] = scopeKey.split(":");
    const now = new Date();
    const at = (date: Date) => date.toISOString().replace("Z", "+00:00");
    await expect(() =>
      execute(
        "INSERT INTO ReconciliationRun (id, source, startedAt, format, provider, account, livemode, scopeKey, status, actor, activeScope, claimedBy, leaseUntil, attempts) VALUES (?, ?, ?, 'stripe-balance-change', ?, ?, ?, ?, 'running', 'e2e', ?, ?, ?, 1)",
        id,
        `e2e hold of ${scopeKey}`,
        at(now),
        provider,
        account,
        onPostgres ? String(mode === "live") : mode === "live" ? 1 : 0,
        scopeKey,
        scopeKey,
        `e2e-hold-${id}`,
        at(new Date(now.getTime() + 600_000)),
      ),
    ).toPass({ timeout: 30_000 });
    return { release: () => execute("DELETE FROM ReconciliationRun WHERE id = ?", id) };
  }

  return { query, deadLetterOf, insertUncertainOutboxRow, insertPastDecision, insertStripeAmountMismatch, setLedgerAmount, addMembership, insertUser, insertAlertChannel, disableAlertChannels, resolveDeadLetter, holdRunScope };
}

export const { query, deadLetterOf, insertUncertainOutboxRow, insertPastDecision, insertStripeAmountMismatch, setLedgerAmount, addMembership, insertUser, insertAlertChannel, disableAlertChannels, resolveDeadLetter, holdRunScope } = databaseOf(SHARED);
