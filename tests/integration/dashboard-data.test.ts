import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ForbiddenError, type Actor } from "@/lib/auth/roles";
import { createUserWithPassword, setUserRoleAs, createUserAs, type AdminCalls } from "@/lib/auth/users";
import { closeDb, db } from "@/lib/db/client";
import { decisionsPerHour } from "@/lib/decisions/decisions-per-hour";
import { listDecisionsPage } from "@/lib/decisions/list-decisions";
import { listDeadLettersPage } from "@/lib/dead-letters/list-dead-letters";
import { assignDeadLetterAs, resolveDeadLetterAs, retryDeadLetterAs, retryDeadLettersAs } from "@/lib/triage/manage-dead-letters";
import { healthSummary } from "@/lib/health/health-summary";
import { listOrdersPage, orderCurrencies, type OrderQuery } from "@/lib/orders/list-orders";
import { getOrderTimeline } from "@/lib/orders/order-timeline";
import { listReviewQueue, resolveExtraChargeAs, resolveOutboxAs } from "@/lib/review/review-queue";
import { createOrder, deliverLab, labEvent } from "@/e2e/support/http";
const DEFAULT_ORG = "org_default";

const merchant: Actor = { id: "u_merchant", email: "merchant@shop.test", name: "M", role: "merchant", organizationId: "org_default" };
const support: Actor = { id: "u_support", email: "support@shop.test", name: "S", role: "support", organizationId: "org_default" };
const admin: Actor = { id: "u_admin", email: "admin@shop.test", name: "A", role: "admin", organizationId: "org_default" };

const base: OrderQuery = { page: 1, pageSize: 25, sort: "id", dir: "asc" };

async function deadLetterOf(eventId: string) {
  return (await db()).deadLetter.findFirstOrThrow({ where: { eventId } });
}

before(async () => {
  // d_01..d_12: amounts 1000..12000; odd ones USD; d_01..d_04 paid; d_05 paid then refunded.
  for (let n = 1; n <= 12; n++) assert.equal((await createOrder(`d_${String(n).padStart(2, "0")}`, n * 1000, n % 2 ? "USD" : "ARS")).status, 201);
  for (let n = 1; n <= 5; n++) {
    const id = `d_${String(n).padStart(2, "0")}`;
    assert.equal((await deliverLab(labEvent(`evt_pay_${id}`, "payment.approved", id, `pay_${id}`, n * 1000, n % 2 ? "USD" : "ARS"))).json.outcome, "applied");
  }
  assert.equal((await deliverLab(labEvent("evt_refund_d_05", "payment.refunded", "d_05", "pay_d_05", 5000, "USD"))).json.outcome, "applied");
  // A refund before its approval (dead letter), an unknown order (dead letter), a forged delivery (401).
  assert.equal((await deliverLab(labEvent("evt_early", "payment.refunded", "d_06", "pay_d_06", 6000))).status, 409);
  assert.equal((await deliverLab(labEvent("evt_unknown", "payment.approved", "d_missing", "pay_x", 100))).status, 409);
  assert.equal((await deliverLab(labEvent("evt_forged", "payment.approved", "d_07", "pay_d_07", 7000, "USD"), { secret: "not-the-secret-0000" })).status, 401);
  // A second payment for the paid d_01: an extra charge for review.
  assert.equal((await deliverLab(labEvent("evt_extra", "payment.approved", "d_01", "pay_d_01_again", 1000, "USD"))).json.outcome, "applied");
});
after(closeDb);

describe("orders list", () => {
  test("one page with count, filters by prefix, status and currency, and per-page credited sums", async () => {
    const page = await listOrdersPage(await db(), DEFAULT_ORG, { ...base, q: "d_0", pageSize: 5 });
    assert.deepEqual({ count: page.count, page: page.page, pageSize: page.pageSize, totalPages: page.totalPages }, { count: 9, page: 1, pageSize: 5, totalPages: 2 });
    assert.deepEqual(page.data.map((row) => [row.id, row.status, row.amount, row.credited, row.difference]), [
      ["d_01", "paid", 1000, 1000, 0],
      ["d_02", "paid", 2000, 2000, 0],
      ["d_03", "paid", 3000, 3000, 0],
      ["d_04", "paid", 4000, 4000, 0],
      ["d_05", "refunded", 5000, 0, 0],
    ]);
    const second = await listOrdersPage(await db(), DEFAULT_ORG, { ...base, q: "d_0", pageSize: 5, page: 2 });
    assert.deepEqual(second.data.map((row) => row.id), ["d_06", "d_07", "d_08", "d_09"]);
    const paidUsd = await listOrdersPage(await db(), DEFAULT_ORG, { ...base, status: "paid", currency: "USD" });
    assert.deepEqual(paidUsd.data.map((row) => row.id), ["d_01", "d_03"]);
    const byAmount = await listOrdersPage(await db(), DEFAULT_ORG, { ...base, q: "d_", sort: "amount", dir: "desc", pageSize: 3 });
    // Amount sorts within each currency (ARS before USD): minor units of two currencies do not compare.
    assert.deepEqual(byAmount.data.map((row) => row.id), ["d_12", "d_10", "d_08"]);
    const byAmountUsd = await listOrdersPage(await db(), DEFAULT_ORG, { ...base, q: "d_", sort: "amount", dir: "desc", pageSize: 3, page: 3 });
    assert.deepEqual(byAmountUsd.data.map((row) => [row.id, row.currency, row.amount]), [["d_11", "USD", 11000], ["d_09", "USD", 9000], ["d_07", "USD", 7000]]);
    const future = await listOrdersPage(await db(), DEFAULT_ORG, { ...base, from: new Date(Date.now() + 86_400_000) });
    assert.equal(future.count, 0);
    assert.deepEqual(await orderCurrencies(await db()), ["ARS", "USD"]);
  });

  test("an invalid query is refused, not silently widened", async () => {
    await assert.rejects(listOrdersPage(await db(), DEFAULT_ORG, { ...base, pageSize: 500 }));
  });

  test("an order's timeline holds every decision, its ledger, delivery and extra charges", async () => {
    const timeline = await getOrderTimeline(await db(), DEFAULT_ORG, "d_01");
    assert.ok(timeline);
    assert.deepEqual(timeline.decisions.map((decision) => [decision.eventId, decision.outcome, decision.httpStatus]), [
      ["evt_pay_d_01", "applied", 200],
      ["evt_extra", "applied", 200],
    ]);
    assert.deepEqual(timeline.ledger.map((entry) => [entry.businessKey, entry.amount]), [["credit:lab:lab:live:pay_d_01", 1000]]);
    assert.equal(timeline.delivery?.paymentKey, "pay_d_01");
    assert.deepEqual(timeline.extraCharges.map((extra) => [extra.paymentKey, extra.status]), [["pay_d_01_again", "open"]]);
    assert.equal(await getOrderTimeline(await db(), DEFAULT_ORG, "nope"), null);
  });
});

describe("decision log", () => {
  test("filters by outcome, HTTP status, event id and order id; newest first", async () => {
    const client = await db();
    const all = await listDecisionsPage(client, DEFAULT_ORG, { page: 1, pageSize: 100 });
    assert.equal(all.count, 10);
    for (let index = 1; index < all.data.length; index++) assert.ok(all.data[index - 1].at >= all.data[index].at);
    assert.equal((await listDecisionsPage(client, DEFAULT_ORG, { page: 1, pageSize: 10, outcome: "dead_lettered" })).count, 2);
    const forged = await listDecisionsPage(client, DEFAULT_ORG, { page: 1, pageSize: 10, httpStatus: 401 });
    assert.deepEqual(forged.data.map((row) => [row.eventId, row.verified, row.reason]), [["evt_forged", false, "signature does not match any configured signing secret"]]);
    assert.equal((await listDecisionsPage(client, DEFAULT_ORG, { page: 1, pageSize: 10, eventId: "evt_early" })).count, 1);
    assert.equal((await listDecisionsPage(client, DEFAULT_ORG, { page: 1, pageSize: 10, orderId: "d_05" })).count, 2);
    assert.equal((await listDecisionsPage(client, DEFAULT_ORG, { page: 1, pageSize: 10, provider: "stripe" })).count, 0);
    assert.equal((await listDecisionsPage(client, DEFAULT_ORG, { page: 1, pageSize: 10, from: new Date(Date.now() + 60_000) })).count, 0);
  });

  test("decisions per hour: 24 UTC buckets whose outcomes add up to the log", async () => {
    const buckets = await decisionsPerHour(await db(), { organizationId: DEFAULT_ORG });
    assert.equal(buckets.length, 24);
    assert.equal(buckets[23].start.getTime() % 3_600_000, 0);
    assert.equal(buckets.reduce((sum, bucket) => sum + bucket.total, 0), 10);
    const byOutcome = (outcome: string) => buckets.reduce((sum, bucket) => sum + (bucket.counts[outcome] ?? 0), 0);
    assert.deepEqual([byOutcome("applied"), byOutcome("dead_lettered"), byOutcome("rejected")], [7, 2, 1]);
    const filtered = await decisionsPerHour(await db(), { organizationId: DEFAULT_ORG, outcome: "rejected" });
    assert.equal(filtered.reduce((sum, bucket) => sum + bucket.total, 0), 1);
  });
});

describe("dead letters", () => {
  test("the open tab lists both dead letters without their payloads", async () => {
    const page = await listDeadLettersPage(await db(), DEFAULT_ORG, { page: 1, pageSize: 25, status: "open" });
    assert.equal(page.count, 2);
    assert.deepEqual(page.data.map((row) => row.eventId).sort(), ["evt_early", "evt_unknown"]);
    assert.equal("payload" in page.data[0], false);
  });

  test("a merchant cannot retry, assign or resolve: ForbiddenError and nothing changes", async () => {
    const letter = await deadLetterOf("evt_early");
    const client = await db();
    await assert.rejects(retryDeadLetterAs(client, merchant, letter.id), ForbiddenError);
    await assert.rejects(retryDeadLettersAs(client, merchant, [letter.id]), ForbiddenError);
    await assert.rejects(assignDeadLetterAs(client, merchant, letter.id), ForbiddenError);
    await assert.rejects(resolveDeadLetterAs(client, merchant, letter.id, "nope"), ForbiddenError);
    const after = await deadLetterOf("evt_early");
    assert.deepEqual([after.status, after.attempts, after.owner], ["open", 1, null]);
    assert.equal(await client.auditEntry.count({ where: { targetId: letter.id } }), 0);
  });

  test("a retry that fails again keeps it open with one more attempt; after the approval it applies", async () => {
    const client = await db();
    const letter = await deadLetterOf("evt_early");
    const again = await retryDeadLetterAs(client, support, letter.id);
    assert.deepEqual([again.outcome, again.attempts], ["dead_lettered", 2]);
    assert.equal((await deadLetterOf("evt_early")).status, "open");

    assert.equal((await deliverLab(labEvent("evt_pay_d_06", "payment.approved", "d_06", "pay_d_06", 6000))).json.outcome, "applied");
    const applied = await retryDeadLetterAs(client, support, letter.id);
    assert.equal(applied.outcome, "applied");
    const resolved = await deadLetterOf("evt_early");
    assert.deepEqual([resolved.status, resolved.resolvedBy], ["resolved", "support@shop.test"]);
    assert.equal((await client.ledgerEntry.aggregate({ where: { orderId: "d_06" }, _sum: { amount: true } }))._sum.amount, 0);
    // A second retry of a resolved dead letter does nothing.
    assert.equal((await retryDeadLetterAs(client, support, letter.id)).outcome, "already_resolved");
    assert.equal(await client.ledgerEntry.count({ where: { orderId: "d_06" } }), 2);
    assert.deepEqual((await client.auditEntry.findMany({ where: { targetId: letter.id }, orderBy: { at: "asc" } })).map((row) => row.note?.split(":")[0]), ["dead_lettered", "applied", "already_resolved"]);
  });

  test("a conflict (a stored event id re-sent with another body) is not retried: a person compares the bodies", async () => {
    const client = await db();
    const conflict = await deliverLab(labEvent("evt_pay_d_02", "payment.approved", "d_02", "pay_d_02", 2001));
    assert.equal(conflict.status, 409);
    const letter = await deadLetterOf("evt_pay_d_02");
    const result = await retryDeadLetterAs(client, support, letter.id);
    assert.equal(result.outcome, "not_retryable");
    const after = await deadLetterOf("evt_pay_d_02");
    assert.deepEqual([after.status, after.attempts], ["open", 1]);
    assert.equal(await client.ledgerEntry.count({ where: { orderId: "d_02" } }), 1);
    assert.equal(await resolveDeadLetterAs(client, support, letter.id, "provider confirmed the first body is the real one"), true);
  });

  test("assign to me, then resolve with a note, each with an audit row", async () => {
    const client = await db();
    const letter = await deadLetterOf("evt_unknown");
    assert.equal(await assignDeadLetterAs(client, support, letter.id), "assigned");
    assert.equal((await deadLetterOf("evt_unknown")).owner, "support@shop.test");
    assert.equal(await resolveDeadLetterAs(client, admin, letter.id, "order was never placed: fraud probe"), true);
    assert.equal(await resolveDeadLetterAs(client, admin, letter.id, "again"), false);
    const resolved = await deadLetterOf("evt_unknown");
    assert.deepEqual([resolved.status, resolved.resolution, resolved.resolvedBy], ["resolved", "order was never placed: fraud probe", "admin@shop.test"]);
    const audit = await client.auditEntry.findMany({ where: { targetId: letter.id }, orderBy: { at: "asc" }, select: { action: true, actorEmail: true } });
    assert.deepEqual(audit, [
      { action: "dead_letter.assign", actorEmail: "support@shop.test" },
      { action: "dead_letter.resolve", actorEmail: "admin@shop.test" },
    ]);
  });
});

describe("review queue and health strip", () => {
  test("counts pending events and their age, open dead letters, failed attempts in the last hour and uncertain outbox rows", async () => {
    const client = await db();
    const now = new Date();
    await client.webhookEvent.create({
      data: { provider: "lab", endpoint: "lab", account: "lab", livemode: true, eventId: "evt_pending", type: "payment.approved", bodyHash: "x", status: "received", payload: "{}", receivedAt: new Date(now.getTime() - 90_000) },
    });
    await client.outboxMessage.create({ data: { id: "ob_1", idempotencyKey: "fulfil:d_02", orderId: "d_02", target: "https://merchant.test/fulfil", body: "{}", status: "uncertain" } });
    await client.outboxMessage.create({ data: { id: "ob_2", idempotencyKey: "fulfil:d_03", orderId: "d_03", target: "https://merchant.test/fulfil", body: "{}", status: "sent" } });
    // Failed attempts: evt_early and evt_unknown (409), the retry that failed again, the conflicting evt_pay_d_02.
    assert.deepEqual(await healthSummary(client, DEFAULT_ORG, now), { pendingEvents: 1, oldestPendingAgeSeconds: 90, openDeadLetters: 0, uncertainOutbox: 1, failedAttemptsLastHour: 4, books: null });
    await client.webhookEvent.deleteMany({ where: { eventId: "evt_pending" } });
  });

  test("extra charges and uncertain outbox rows are resolved by support with a note, not by a merchant", async () => {
    const client = await db();
    const queue = await listReviewQueue(client, DEFAULT_ORG);
    assert.equal(queue.extraCharges.count, 1);
    assert.equal(queue.outbox.count, 1);
    assert.equal("body" in queue.outbox.data[0], false);
    const extraId = queue.extraCharges.data[0].id;
    await assert.rejects(resolveExtraChargeAs(client, merchant, extraId, "x"), ForbiddenError);
    await assert.rejects(resolveOutboxAs(client, merchant, "ob_1", "x"), ForbiddenError);
    assert.equal(await resolveExtraChargeAs(client, support, extraId, "refunded in the provider console"), true);
    assert.equal(await resolveExtraChargeAs(client, support, extraId, "twice"), false);
    assert.equal(await resolveOutboxAs(client, support, "ob_1", "the merchant confirmed it shipped"), true);
    assert.equal(await resolveOutboxAs(client, support, "ob_2", "sent rows are not in the queue"), false);
    const after = await listReviewQueue(client, DEFAULT_ORG);
    assert.deepEqual([after.extraCharges.count, after.outbox.count], [0, 0]);
    assert.equal(await client.auditEntry.count({ where: { action: { in: ["extra_charge.resolve", "outbox.resolve"] } } }), 2);
  });
});

describe("users", () => {
  test("only an admin creates users or changes roles, and never demotes themself", async () => {
    const client = await db();
    await assert.rejects(createUserAs(client, support, { email: "x@shop.test", name: "X", role: "admin", password: "password-0001" }), ForbiddenError);
    const created = await createUserAs(client, admin, { email: "new@shop.test", name: "New", role: "merchant", password: "password-0001" });
    assert.equal(created.kind, "created");
    assert.equal((await createUserWithPassword(client, { email: "new@shop.test", name: "Dup", role: "admin", password: "password-0002" })).kind, "exists");
    const id = created.kind === "created" ? created.user.id : "";
    // The admin plugin's calls, recorded (e2e/http/access-control.test.ts runs the real ones over HTTP).
    const made: string[] = [];
    const calls: AdminCalls = {
      setRole: async (userId, role) => made.push(`setRole ${userId} ${role}`) && client.user.update({ where: { id: userId }, data: { role } }),
      ban: async (userId) => made.push(`ban ${userId}`),
      unban: async (userId) => made.push(`unban ${userId}`),
      revokeSessions: async (userId) => made.push(`revokeSessions ${userId}`),
    };
    await assert.rejects(setUserRoleAs(client, support, calls, id, "admin"), ForbiddenError);
    assert.equal(await setUserRoleAs(client, admin, calls, id, "support"), "updated");
    assert.equal(await setUserRoleAs(client, admin, calls, id, "support"), "unchanged");
    assert.equal(await setUserRoleAs(client, admin, calls, "missing", "support"), "not_found");
    assert.equal(await setUserRoleAs(client, admin, calls, admin.id, "merchant"), "self");
    assert.equal((await client.user.findUniqueOrThrow({ where: { id } })).role, "support");
    assert.deepEqual(made, [`setRole ${id} support`, `revokeSessions ${id}`]);
  });
});
