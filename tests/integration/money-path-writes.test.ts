// The conformance suite of the money path's writers, on the database under test (SQLite and PostgreSQL):
// each table has one module that writes it (.dependency-cruiser.cjs, MONEY_PATH_WRITERS), and every write
// those modules offer is run here on its own and read back column by column through the model API, so a
// statement that writes a time, a boolean or a NULL differently on one database fails here first.
import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { because } from "@/lib/reasons/reason-codes";
import { closeDb, db } from "@/lib/db/client";
import { driverOf } from "@/lib/db/driver";
import { newRowId } from "@/lib/db/row-id";
import {
  claimDueInboxEvents,
  guardEventLeases,
  insertEvents,
  markEventApplied,
  markEventDead,
  purgeEventPayloads,
  releaseInboxLease,
  requeueEvent,
  scheduleEventRetry,
  wakeParkedEvents,
  type NewEventRow,
} from "@/lib/events/webhook-events";
import { decisionRow, deleteDecisions, insertDecisions, linkDecisionsToOrder } from "@/lib/decisions/record-decision";
import { assignDeadLetter, nameDeadLetterResolver, noteDeadLetterRequeued, purgeDeadLetterPayloads, recordDeadLetter, resolveDeadLetter, upsertDeadLetter, type DeadLetterInput } from "@/lib/dead-letters/dead-letters";
import { claimNextOutboxMessage, insertOutboxMessage, markAbandonedSendsUncertain, recordSendOutcome, resolveUncertainOutboxMessage, settleOutboxRow } from "@/lib/outbox/outbox-store";
import { ApplyFailure } from "@/lib/core/failures";
const DEFAULT_ORG = "org_default";

after(closeDb);

const T0 = new Date("2026-11-30T12:00:00.000Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

/** A new inbox row of the lab provider, `received` and due at T0. */
function eventRow(eventId: string, fields: Partial<NewEventRow> = {}): NewEventRow {
  return {
    id: newRowId(T0),
    organizationId: "org_default",
    provider: "lab",
    endpoint: "lab",
    account: "acct_writes",
    livemode: false,
    eventId,
    type: "payment.approved",
    bodyHash: `hash_${eventId}`,
    orderId: `ord_${eventId}`,
    paymentKey: `pay_${eventId}`,
    payload: `{"eventId":"${eventId}"}`,
    secretLabel: "lab-current",
    headerNames: '["content-type","lab-signature"]',
    customerEmail: `${eventId}@example.com`,
    chargeId: `ch_${eventId}`,
    checkoutSessionId: `cs_${eventId}`,
    status: "received",
    attempts: 0,
    nextAttemptAt: T0,
    dueAt: T0,
    receivedAt: T0,
    ...fields,
  };
}

async function eventById(id: string) {
  return (await db()).webhookEvent.findUniqueOrThrow({ where: { id } });
}

describe("WebhookEvent: lib/events/webhook-events.ts", () => {
  test("insertEvents writes every column once per key; a key already stored comes back missing, never an error", async () => {
    const client = await db();
    const first = eventRow("evt_w_insert_1");
    const second = eventRow("evt_w_insert_2", { livemode: true, secretLabel: null, orderId: null, paymentKey: null, headerNames: null, customerEmail: null, chargeId: null, checkoutSessionId: null, status: "processing", attempts: 1, nextAttemptAt: null, dueAt: null });
    const inserted = await driverOf(client).transaction((session) => insertEvents(session, [first, second]));
    assert.deepEqual(
      inserted.map((row) => [row.id, row.provider, row.account, row.livemode, row.eventId]).sort(),
      [
        [first.id, "lab", "acct_writes", false, "evt_w_insert_1"],
        [second.id, "lab", "acct_writes", true, "evt_w_insert_2"],
      ].sort(),
    );
    const again = await driverOf(client).transaction((session) => insertEvents(session, [{ ...first, id: newRowId(T0), bodyHash: "other" }]));
    assert.deepEqual(again, []);
    const stored = await eventById(first.id);
    assert.deepEqual(
      { ...stored, receivedAt: stored.receivedAt.toISOString(), nextAttemptAt: stored.nextAttemptAt?.toISOString(), dueAt: stored.dueAt?.toISOString() },
      {
        id: first.id,
        organizationId: "org_default",
        provider: "lab",
        endpoint: "lab",
        account: "acct_writes",
        livemode: false,
        eventId: "evt_w_insert_1",
        type: "payment.approved",
        bodyHash: "hash_evt_w_insert_1",
        orderId: "ord_evt_w_insert_1",
        paymentKey: "pay_evt_w_insert_1",
        payload: '{"eventId":"evt_w_insert_1"}',
        secretLabel: "lab-current",
        headerNames: '["content-type","lab-signature"]',
        customerEmail: "evt_w_insert_1@example.com",
        chargeId: "ch_evt_w_insert_1",
        checkoutSessionId: "cs_evt_w_insert_1",
        status: "received",
        attempts: 0,
        nextAttemptAt: T0.toISOString(),
        dueAt: T0.toISOString(),
        receivedAt: T0.toISOString(),
        processedAt: null,
        lastError: null,
        firstFailedAt: null,
        leaseOwner: null,
        leaseExpiresAt: null,
        purgedAt: null,
      },
    );
    const other = await eventById(second.id);
    assert.deepEqual(
      [other.livemode, other.secretLabel, other.orderId, other.headerNames, other.customerEmail, other.chargeId, other.checkoutSessionId, other.nextAttemptAt, other.dueAt, other.status, other.attempts],
      [true, null, null, null, null, null, null, null, null, "processing", 1],
    );
  });

  test("claim, guard, retry, dead, applied and release each write exactly their columns", async () => {
    const client = await db();
    const row = eventRow("evt_w_life", { account: "acct_writes_life", dueAt: at(-100), nextAttemptAt: at(-100) });
    await driverOf(client).transaction((session) => insertEvents(session, [row]));
    // Other tests' rows may be due too: claim with a limit large enough to take ours among them.
    const claimed = (await claimDueInboxEvents(client, "worker-a", at(0), 30_000, 1_000)).find((event) => event.id === row.id);
    assert.ok(claimed, "the due event is claimed");
    assert.deepEqual([claimed.attempts, claimed.leaseExpiresAt.toISOString()], [1, at(30).toISOString()]);
    let stored = await eventById(row.id);
    assert.deepEqual([stored.status, stored.leaseOwner, stored.leaseExpiresAt?.toISOString(), stored.dueAt?.toISOString(), stored.attempts], ["processing", "worker-a", at(30).toISOString(), at(30).toISOString(), 1]);

    assert.deepEqual([...(await driverOf(client).transaction((session) => guardEventLeases(session, [row.id], "worker-b")))], []);
    assert.deepEqual([...(await driverOf(client).transaction((session) => guardEventLeases(session, [row.id], "worker-a")))], [row.id]);

    await driverOf(client).transaction((session) => scheduleEventRetry(session, row.id, at(60), { lastError: "x".repeat(600), firstFailedAt: at(1) }));
    stored = await eventById(row.id);
    assert.deepEqual(
      [stored.status, stored.nextAttemptAt?.toISOString(), stored.dueAt?.toISOString(), stored.lastError?.length, stored.firstFailedAt?.toISOString(), stored.leaseOwner, stored.leaseExpiresAt],
      ["failed", at(60).toISOString(), at(60).toISOString(), 500, at(1).toISOString(), null, null],
    );

    // Parked: woken by its order (now due), then by its payment in ITS scope only.
    assert.equal(await driverOf(client).transaction((session) => wakeParkedEvents(session, { paymentKey: "pay_evt_w_life", scope: { provider: "lab", account: "acct_other", livemode: false } }, at(2))), 0);
    assert.equal(await driverOf(client).transaction((session) => wakeParkedEvents(session, { orderId: "ord_evt_w_life", scope: { provider: "lab", account: "acct_writes_life", livemode: false } }, at(2))), 1);
    stored = await eventById(row.id);
    assert.deepEqual([stored.nextAttemptAt?.toISOString(), stored.dueAt?.toISOString()], [at(2).toISOString(), at(2).toISOString()]);

    await driverOf(client).transaction((session) => markEventDead(session, row.id, { lastError: "refused", firstFailedAt: at(1) }));
    stored = await eventById(row.id);
    assert.deepEqual([stored.status, stored.nextAttemptAt, stored.dueAt, stored.lastError], ["dead", null, null, "refused"]);

    assert.equal(await driverOf(client).transaction((session) => requeueEvent(session, row.id, "failed", at(3))), false, "a stale status re-queues nothing");
    assert.equal(await driverOf(client).transaction((session) => requeueEvent(session, row.id, "dead", at(3))), true);
    stored = await eventById(row.id);
    assert.deepEqual([stored.status, stored.attempts, stored.firstFailedAt, stored.dueAt?.toISOString()], ["received", 0, null, at(3).toISOString()]);

    const reclaimed = (await claimDueInboxEvents(client, "worker-c", at(4), 30_000, 1_000)).find((event) => event.id === row.id);
    assert.ok(reclaimed);
    assert.equal(await releaseInboxLease(client, row.id, "worker-other", at(5)), false);
    assert.equal(await releaseInboxLease(client, row.id, "worker-c", at(5)), true);
    stored = await eventById(row.id);
    assert.deepEqual([stored.status, stored.attempts, stored.leaseOwner, stored.dueAt?.toISOString()], ["received", 0, null, at(5).toISOString()]);

    await driverOf(client).transaction((session) => markEventApplied(session, row.id, "processed", "ord_found", at(6)));
    stored = await eventById(row.id);
    assert.deepEqual(
      [stored.status, stored.processedAt?.toISOString(), stored.orderId, stored.lastError, stored.nextAttemptAt, stored.dueAt, stored.leaseOwner],
      ["processed", at(6).toISOString(), "ord_found", null, null, null, null],
    );
  });

  test("purgeEventPayloads empties only finished events received before the cutoff", async () => {
    const client = await db();
    const old = eventRow("evt_w_purge_old", { status: "processed", receivedAt: at(-3600) });
    const fresh = eventRow("evt_w_purge_new", { status: "processed", receivedAt: at(0) });
    const pending = eventRow("evt_w_purge_pending", { status: "failed", receivedAt: at(-3600) });
    await driverOf(client).transaction((session) => insertEvents(session, [old, fresh, pending]));
    assert.equal(await purgeEventPayloads(client, [old.id, fresh.id, pending.id], at(-60), at(10)), 1);
    const rows = await client.webhookEvent.findMany({ where: { id: { in: [old.id, fresh.id, pending.id] } }, orderBy: { eventId: "asc" }, select: { eventId: true, payload: true, customerEmail: true, chargeId: true, headerNames: true, purgedAt: true } });
    // The e-mail goes with the payload (personal data); the charge id and header names stay to find and explain the row.
    assert.deepEqual(
      rows.map((row) => [row.eventId, row.payload, row.customerEmail, row.chargeId, row.headerNames, row.purgedAt?.toISOString() ?? null]),
      [
        ["evt_w_purge_new", '{"eventId":"evt_w_purge_new"}', "evt_w_purge_new@example.com", "ch_evt_w_purge_new", '["content-type","lab-signature"]', null],
        ["evt_w_purge_old", "", null, "ch_evt_w_purge_old", '["content-type","lab-signature"]', at(10).toISOString()],
        ["evt_w_purge_pending", '{"eventId":"evt_w_purge_pending"}', "evt_w_purge_pending@example.com", "ch_evt_w_purge_pending", '["content-type","lab-signature"]', null],
      ],
    );
  });
});

describe("Decision: lib/decisions/record-decision.ts", () => {
  test("insertDecisions stamps each row with its own time; linking and deleting touch only their rows", async () => {
    const client = await db();
    const base = { organizationId: "org_default", provider: "lab", endpoint: "lab", verified: true, eventType: "payment.approved", httpStatus: 200, source: "receiver" } as const;
    const rows = [
      { ...decisionRow({ ...base, eventId: "evt_w_dec", outcome: "accepted", ...because("accepted", { eventId: "evt_w_dec" }) }), at: at(1) },
      decisionRow({ ...base, eventId: "evt_w_dec", outcome: "duplicate", reason: "again" }),
      decisionRow({ ...base, eventId: "evt_w_dec", verified: false, outcome: "rejected", reason: "unsigned", httpStatus: 401 }),
    ];
    await driverOf(client).transaction((session) => insertDecisions(session, rows, at(2)));
    const stored = await client.decision.findMany({ where: { eventId: "evt_w_dec" }, orderBy: [{ at: "asc" }, { id: "asc" }] });
    assert.deepEqual(
      stored.map((row) => [row.at.toISOString(), row.outcome, row.verified, row.reasonCode, row.orderId]),
      [
        [at(1).toISOString(), "accepted", true, "accepted", null],
        [at(2).toISOString(), "duplicate", true, null, null],
        [at(2).toISOString(), "rejected", false, null, null],
      ],
    );
    // Only the verified rows of this endpoint that named no order get the order.
    assert.equal(await driverOf(client).transaction((session) => linkDecisionsToOrder(session, { organizationId: "org_default", endpoint: "lab", eventId: "evt_w_dec" }, "ord_w_dec")), 2);
    assert.deepEqual((await client.decision.findMany({ where: { eventId: "evt_w_dec" }, orderBy: [{ at: "asc" }, { id: "asc" }] })).map((row) => row.orderId), ["ord_w_dec", "ord_w_dec", null]);
    assert.deepEqual(await deleteDecisions(client, [stored[2].id]), { count: 1 });
    assert.equal(await client.decision.count({ where: { eventId: "evt_w_dec" } }), 2);
  });
});

describe("DeadLetter: lib/dead-letters/dead-letters.ts", () => {
  const input = (attempts?: number): DeadLetterInput => ({
    organizationId: "org_default",
    key: { provider: "lab", account: "acct_writes", livemode: false, eventId: "evt_w_dead" },
    endpoint: "lab",
    eventType: "payment.approved",
    bodyHash: "hash_w_dead",
    secretLabel: "lab-current",
    payload: '{"eventId":"evt_w_dead"}',
    orderId: "ord_w_dead",
    failure: new ApplyFailure("unknown_order", because("unknown_order", { orderId: "ord_w_dead" })),
    ...(attempts ? { attempts } : {}),
  });

  test("one row per event and body: a repeat adds its attempts and reopens; resolutions, owner, re-queue note and purge write their columns", async () => {
    const client = await db();
    const id = await recordDeadLetter(client, input(), at(0));
    await driverOf(client).transaction((session) => upsertDeadLetter(session, input(3), at(5)));
    let letter = await client.deadLetter.findUniqueOrThrow({ where: { id } });
    assert.deepEqual(
      [letter.attempts, letter.status, letter.category, letter.reasonCode, letter.firstFailedAt.toISOString(), letter.lastFailedAt.toISOString(), letter.livemode],
      [4, "open", "unknown_order", "unknown_order", at(0).toISOString(), at(5).toISOString(), false],
    );

    assert.equal(await assignDeadLetter(client, DEFAULT_ORG, id, "support@example.com"), true);
    await driverOf(client).transaction((session) => noteDeadLetterRequeued(session, id, "other@example.com", at(6)));
    letter = await client.deadLetter.findUniqueOrThrow({ where: { id } });
    assert.deepEqual([letter.owner, letter.nextAction], ["support@example.com", `re-queued by other@example.com at ${at(6).toISOString()}; the worker applies it`]);

    assert.equal(await resolveDeadLetter(client, DEFAULT_ORG, id, because("event_already_done", { status: "processed" }), "system", at(7)), true);
    assert.equal(await resolveDeadLetter(client, DEFAULT_ORG, id, { note: "again" }, "someone", at(8)), false, "a resolved dead letter is not resolved twice");
    await nameDeadLetterResolver(client, DEFAULT_ORG, id, "support@example.com");
    letter = await client.deadLetter.findUniqueOrThrow({ where: { id } });
    assert.deepEqual([letter.status, letter.resolutionCode, letter.resolvedBy, letter.resolvedAt?.toISOString()], ["resolved", "event_already_done", "support@example.com", at(7).toISOString()]);
    assert.equal(await assignDeadLetter(client, DEFAULT_ORG, id, null), false, "a resolved dead letter keeps its owner");

    assert.equal(await purgeDeadLetterPayloads(client, [id], at(6), at(9)), 0, "resolved after the cutoff: kept");
    assert.equal(await purgeDeadLetterPayloads(client, [id], at(60), at(61)), 1);
    letter = await client.deadLetter.findUniqueOrThrow({ where: { id } });
    assert.deepEqual([letter.payload, letter.purgedAt?.toISOString()], ["", at(61).toISOString()]);

    // A later failure of the same event and body reopens the same row.
    await recordDeadLetter(client, input(), at(70));
    letter = await client.deadLetter.findUniqueOrThrow({ where: { id } });
    assert.deepEqual([letter.status, letter.attempts, letter.resolution, letter.resolvedBy], ["open", 5, null, null]);
    assert.equal(await resolveDeadLetter(client, DEFAULT_ORG, id, { note: "n".repeat(600) }, "support@example.com", at(71)), true);
    assert.equal((await client.deadLetter.findUniqueOrThrow({ where: { id } })).resolution?.length, 500);
  });
});

describe("OutboxMessage: lib/outbox/outbox-store.ts", () => {
  test("insert once per idempotency key; claim, send outcome, abandoned send, resend and resolution write their columns", async () => {
    const client = await db();
    await client.order.create({ data: { id: "ord_w_outbox", amount: 1000, currency: "ARS", status: "paid" } });
    const id = newRowId(T0);
    const message = { id, organizationId: "org_default", idempotencyKey: "fulfilment:ord_w_outbox", orderId: "ord_w_outbox", target: "http://127.0.0.1:9/hook", body: '{"type":"order.paid"}' };
    await driverOf(client).transaction((session) => insertOutboxMessage(session, message, at(-10)));
    await assert.rejects(driverOf(client).transaction((session) => insertOutboxMessage(session, { ...message, id: newRowId(T0) }, at(-9))), "a second message under one idempotency key");
    let stored = await client.outboxMessage.findUniqueOrThrow({ where: { id } });
    assert.deepEqual([stored.status, stored.attempts, stored.nextAttemptAt.toISOString(), stored.createdAt.toISOString()], ["pending", 0, at(-10).toISOString(), at(-10).toISOString()]);

    let claimed = await claimNextOutboxMessage(client, "dispatcher-a", at(0), 10_000);
    while (claimed && claimed.id !== id) claimed = await claimNextOutboxMessage(client, "dispatcher-a", at(0), 10_000);
    assert.deepEqual(claimed && [claimed.id, claimed.attempts], [id, 1]);
    assert.equal(await recordSendOutcome(client, id, "dispatcher-b", { status: "sent", lastStatusCode: 200, lastError: null, nextAttemptAt: at(1) }), false);
    assert.equal(await recordSendOutcome(client, id, "dispatcher-a", { status: "pending", lastStatusCode: 503, lastError: "e".repeat(700), nextAttemptAt: at(30) }), true);
    stored = await client.outboxMessage.findUniqueOrThrow({ where: { id } });
    assert.deepEqual([stored.status, stored.lastStatusCode, stored.lastError?.length, stored.nextAttemptAt.toISOString(), stored.leaseOwner], ["pending", 503, 500, at(30).toISOString(), null]);

    // A send whose lease ran out becomes uncertain, then a person resolves it.
    await client.outboxMessage.update({ where: { id }, data: { status: "sending", leaseOwner: "dispatcher-a", leaseExpiresAt: at(40) } });
    assert.ok((await markAbandonedSendsUncertain(client, at(41))) >= 1);
    assert.equal((await client.outboxMessage.findUniqueOrThrow({ where: { id } })).status, "uncertain");
    assert.equal(await settleOutboxRow(client, id, "resend", "resent by support", at(42)), true);
    stored = await client.outboxMessage.findUniqueOrThrow({ where: { id } });
    assert.deepEqual([stored.status, stored.nextAttemptAt.toISOString(), stored.note], ["pending", at(42).toISOString(), "resent by support"]);
    assert.equal(await resolveUncertainOutboxMessage(client, DEFAULT_ORG, id, "not uncertain"), false);
    await client.outboxMessage.update({ where: { id }, data: { status: "uncertain" } });
    assert.equal(await resolveUncertainOutboxMessage(client, DEFAULT_ORG, id, "the merchant confirms it shipped"), true);
    stored = await client.outboxMessage.findUniqueOrThrow({ where: { id } });
    assert.deepEqual([stored.status, stored.note], ["resolved", "the merchant confirms it shipped"]);
  });
});
