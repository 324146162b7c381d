import "@/e2e/support/test-env";
// The keys the core relies on are constraints of the database itself, on SQLite and PostgreSQL alike:
// a violation inside a transaction rolls the WHOLE transaction back and is reported as P2002 with the
// violated columns (lib/db/errors.ts), which the core answers as a duplicate.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { uniqueViolationFields } from "@/lib/db/errors";
import { deliverLab } from "@/e2e/support/http";
import { inboxRow } from "@/e2e/support/inbox-rows";
import { TEST_DATABASE as KIND } from "@/e2e/support/test-database";

after(closeDb);

const eventRow = (eventId: string) => inboxRow(eventId, { status: "processing" });

/** Runs `work` in a transaction that must fail on a unique key; returns the violated columns. */
async function violation(work: Parameters<Awaited<ReturnType<typeof db>>["$transaction"]>[0]): Promise<string[] | undefined> {
  try {
    await (await db()).$transaction(work);
  } catch (error) {
    return uniqueViolationFields(error);
  }
  assert.fail("the transaction committed");
}

describe(`unique keys on ${KIND}`, () => {
  test("a second event with the same provider, account, mode and id fails on the event key and rolls back the whole transaction", async () => {
    const database = await db();
    await database.webhookEvent.create({ data: eventRow("evt_key_1") });
    const fields = await violation(async (tx) => {
      await tx.order.create({ data: { id: "ord_rolled_back", amount: 100, currency: "ARS" } });
      await tx.webhookEvent.create({ data: eventRow("evt_key_1") });
    });
    assert.deepEqual(fields, ["provider", "account", "livemode", "eventId"]);
    assert.equal(await database.order.count({ where: { id: "ord_rolled_back" } }), 0);
    assert.equal(await database.webhookEvent.count({ where: { eventId: "evt_key_1" } }), 1);
    // The same id in test mode is another event.
    await database.webhookEvent.create({ data: { ...eventRow("evt_key_1"), livemode: false } });
    assert.equal(await database.webhookEvent.count({ where: { eventId: "evt_key_1" } }), 2);
  });

  test("a ledger entry's business key and an organization's order's one delivery are unique", async () => {
    const database = await db();
    await database.order.create({ data: { id: "ord_keys", amount: 500, currency: "ARS" } });
    const entry = { businessKey: "credit:lab:lab:live:pay_keys", orderId: "ord_keys", paymentKey: "pay_keys", kind: "credit", amount: 500, currency: "ARS", provider: "lab", account: "lab", livemode: true, eventId: "evt_a" };
    await database.ledgerEntry.create({ data: entry });
    assert.deepEqual(await violation((tx) => tx.ledgerEntry.create({ data: { ...entry, eventId: "evt_b" } })), ["businessKey"]);
    await database.delivery.create({ data: { orderId: "ord_keys", paymentKey: "pay_keys", provider: "lab", eventId: "evt_a" } });
    assert.deepEqual(await violation((tx) => tx.delivery.create({ data: { orderId: "ord_keys", paymentKey: "pay_other", provider: "lab", eventId: "evt_b" } })), ["organizationId", "orderId"]);
    assert.equal(await database.ledgerEntry.count({ where: { orderId: "ord_keys" } }), 1);
    assert.equal(await database.delivery.count({ where: { orderId: "ord_keys" } }), 1);
  });
});

describe(`text PostgreSQL cannot store, on ${KIND}`, () => {
  test("an event id with a NUL character is refused as malformed (422) before anything is stored, with its one decision row", async () => {
    const database = await db();
    const before = await database.decision.count();
    const body = JSON.stringify({ id: "evt_nul\u0000x", type: "payment.approved", created: 1760181330, data: { payment_id: "pay_nul", order_id: "ord_nul", amount: 100, currency: "ARS" } });
    const answer = await deliverLab(body);
    assert.deepEqual([answer.status, answer.json.outcome], [422, "rejected"]);
    assert.match(answer.json.reason, /^invalid lab event: id: must not contain a NUL character/);
    assert.equal(await database.decision.count(), before + 1);
    const row = await database.decision.findFirstOrThrow({ where: { httpStatus: 422, reason: { startsWith: "invalid lab event: id" } } });
    assert.equal(row.eventId, "evt_nul\ufffdx");
    assert.equal(await database.webhookEvent.count({ where: { eventId: { startsWith: "evt_nul" } } }), 0);
  });

  test("an event type with a NUL character is refused as malformed (422), nothing stored (found by the property test on PostgreSQL: it was a 503)", async () => {
    const database = await db();
    const body = JSON.stringify({ id: "evt_nul_type", type: "nul\u0000byte", created: 1760181330, data: { payment_id: "pay_nul_type", order_id: "ord_nul", amount: 100, currency: "ARS" } });
    const answer = await deliverLab(body);
    assert.deepEqual([answer.status, answer.json.outcome], [422, "rejected"]);
    assert.match(answer.json.reason, /^invalid lab event: type: must not contain a NUL character/);
    assert.equal(await database.webhookEvent.count({ where: { eventId: "evt_nul_type" } }), 0);
    assert.equal(await database.decision.count({ where: { eventId: "evt_nul_type", httpStatus: 422 } }), 1);
  });
});
