import "@/e2e/support/test-env";
// Red team: the scoped-keys migration (prisma/migrations/20261201102158_scoped_ledger_keys) upgrades a
// database that was attacked BEFORE the upgrade, and leaves the attack in place.
//
// 1. Before the fix, a stripe-test secret holder could store a live event id first (an event claiming
//    livemode: true on stripe-test was stored in the LIVE scope, which the event key now takes from the endpoint). The migration
//    rewrites LedgerEntry and ExtraCharge but not WebhookEvent: that row keeps endpoint `stripe-test`
//    and livemode = true, a scope the new code never writes. After the upgrade the real live event of
//    that id is still a 409 conflict, never credited.
// 2. The ledger's new scope is read from `WebhookEvent WHERE provider AND eventId` only (no account, no
//    live/test, no order): when one provider holds the same event id in its live and its test scope
//    (stored by both endpoints, both processed), a LIVE credit can be rescoped as a test one, and the
//    real live refund then finds no credit.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import Database from "better-sqlite3";
import { closeDb } from "@/lib/db/client";
import { bodyHash } from "@/lib/core/event-key";
import { paymentIntent, stripeEvent, stripeHeader } from "@/e2e/support/providers";
import { deliver, readOrder } from "@/e2e/support/http";
import { onPostgres } from "@/e2e/support/test-database";

const MIGRATION = "20261201102158_scoped_ledger_keys";
const STRIPE_SECRET = "whsec_redteam_stripe_live_0001";
const STRIPE_TEST_SECRET = "whsec_redteam_stripe_test_0001";
const ACCOUNT = "acct_redteam_poisoned";

// The attacker's body (signed with the TEST secret, claiming live) and the real live event, same id.
const poisonBody = JSON.stringify(stripeEvent("evt_rt_poison_old", "payment_intent.succeeded", paymentIntent({ id: "pi_rt_poison_fake", orderId: "ord_rt_m_poison", amount: 4200, currency: "usd" }), { livemode: true }));
const realBody = JSON.stringify(stripeEvent("evt_rt_poison_old", "payment_intent.succeeded", paymentIntent({ id: "pi_rt_poison_real", orderId: "ord_rt_m_poison", amount: 4200, currency: "usd" })));

/** A SQLite database as the previous release left it (every migration before the scoped keys), holding `rows`, then upgraded. */
function upgradedDatabase(rows: string[]): string {
  const dir = path.join(process.cwd(), "prisma", "migrations");
  const names = readdirSync(dir).filter((entry) => /^\d/.test(entry)).sort();
  const file = path.join(mkdtempSync(path.join(tmpdir(), "acredita-rt-mig-")), "old.db");
  const database = new Database(file);
  for (const name of names.filter((entry) => entry < MIGRATION)) database.exec(readFileSync(path.join(dir, name, "migration.sql"), "utf8"));
  for (const row of rows) database.exec(row);
  for (const name of names.filter((entry) => entry >= MIGRATION)) database.exec(readFileSync(path.join(dir, name, "migration.sql"), "utf8"));
  database.close();
  return file;
}

// Case 1: the poisoned row, exactly as the previous code stored it (key livemode from the payload).
const poisonedFile = onPostgres
  ? ""
  : upgradedDatabase([
      `INSERT INTO "Order" ("id", "livemode", "amount", "currency", "status", "updatedAt") VALUES ('ord_rt_m_poison', 1, 4200, 'USD', 'created', CURRENT_TIMESTAMP)`,
      `INSERT INTO "WebhookEvent" ("id", "provider", "endpoint", "account", "livemode", "eventId", "type", "bodyHash", "status", "payload") VALUES ('we_p', 'stripe', 'stripe-test', '${ACCOUNT}', 1, 'evt_rt_poison_old', 'payment_intent.succeeded', '${bodyHash(Buffer.from(poisonBody))}', 'ignored', '{}')`,
    ]);

process.env.DATABASE_URL = onPostgres ? process.env.DATABASE_URL : `file:${poisonedFile}`;
process.env.WEBHOOK_PROCESSING_MODE = "inline";
process.env.STRIPE_WEBHOOK_SECRET = STRIPE_SECRET;
process.env.STRIPE_TEST_WEBHOOK_SECRET = STRIPE_TEST_SECRET;
process.env.STRIPE_ACCOUNT_ID = ACCOUNT;

after(closeDb);

describe("the scoped-keys migration on a database attacked before the upgrade", { skip: onPostgres ? "SQLite file upgrade (the PostgreSQL twin has the same statements)" : false }, () => {
  test("a live event id stored through stripe-test before the upgrade no longer blocks the real live event", async () => {
    const body = realBody;
    const result = await deliver("stripe", body, { "Stripe-Signature": stripeHeader(body, STRIPE_SECRET) });
    const order = await readOrder("ord_rt_m_poison");
    assert.deepEqual(
      { status: result.status, outcome: result.json.outcome, order: order.status, credited: order.credited },
      { status: 200, outcome: "applied", order: "paid", credited: 4200 },
      `the pre-upgrade poison still blocks the live event: ${JSON.stringify(result.json)}`,
    );
  });

  test("a live credit keeps the live scope when the test scope holds the same event id", () => {
    // Both endpoints stored evt_rt_twin (test row first, as an attacker holding the test secret would
    // have done before the real event), both processed: one credit per scope.
    const file = upgradedDatabase([
      `INSERT INTO "Order" ("id", "livemode", "amount", "currency", "status", "updatedAt") VALUES ('ord_rt_live', 1, 900, 'USD', 'paid', CURRENT_TIMESTAMP)`,
      `INSERT INTO "Order" ("id", "livemode", "amount", "currency", "status", "updatedAt") VALUES ('ord_rt_test', 0, 900, 'USD', 'paid', CURRENT_TIMESTAMP)`,
      `INSERT INTO "WebhookEvent" ("id", "provider", "endpoint", "account", "livemode", "eventId", "type", "bodyHash", "status", "payload") VALUES ('we_t', 'stripe', 'stripe-test', '${ACCOUNT}', 0, 'evt_rt_twin', 'payment_intent.succeeded', 'ht', 'processed', '{}')`,
      `INSERT INTO "WebhookEvent" ("id", "provider", "endpoint", "account", "livemode", "eventId", "type", "bodyHash", "status", "payload") VALUES ('we_l', 'stripe', 'stripe', '${ACCOUNT}', 1, 'evt_rt_twin', 'payment_intent.succeeded', 'hl', 'processed', '{}')`,
      `INSERT INTO "LedgerEntry" ("id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "eventId") VALUES ('l_live', 'credit:pi_rt_live', 'ord_rt_live', 'pi_rt_live', 'credit', 900, 'USD', 'stripe', 'evt_rt_twin')`,
      `INSERT INTO "LedgerEntry" ("id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "eventId") VALUES ('l_test', 'credit:pi_rt_test', 'ord_rt_test', 'pi_rt_test', 'credit', 900, 'USD', 'stripe', 'evt_rt_twin')`,
    ]);
    const database = new Database(file, { readonly: true });
    try {
      const rows = database.prepare(`SELECT id, businessKey, livemode FROM LedgerEntry ORDER BY id`).all();
      assert.deepEqual(rows, [
        { id: "l_live", businessKey: `credit:stripe:${ACCOUNT}:live:pi_rt_live`, livemode: 1 },
        { id: "l_test", businessKey: `credit:stripe:${ACCOUNT}:test:pi_rt_test`, livemode: 0 },
      ]);
    } finally {
      database.close();
    }
  });

});
