import { TEST_API_TOKEN } from "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { POST as postReplays } from "@/app/api/replays/route";
import { GET as getReplay } from "@/app/api/replays/[id]/route";
import { POST as postApply } from "@/app/api/replays/[id]/apply/route";
import { POST as postRetries } from "@/app/api/dead-letters/retries/route";
import { closeDb, db } from "@/lib/db/client";
import { InboxWorker } from "@/lib/inbox/inbox-worker";
import { onWork } from "@/lib/jobs/signals";
import { createOrder, deliverLab, labEvent, readOrder } from "@/e2e/support/http";
import { GET as listReplaysRoute } from "@/app/api/replays/route";
import { createApiKeyAs } from "@/lib/auth/api-keys";
import { createUserWithPassword } from "@/lib/auth/users";

// A fulfilment target, so an apply that makes an order paid queues its outbox message (and a preview must not).
process.env.FULFILMENT_WEBHOOK_URL = "http://127.0.0.1:9/fulfil";

const auth = { authorization: `Bearer ${TEST_API_TOKEN}`, "content-type": "application/json" };

async function preview(filter: Record<string, unknown>, dryRun = true): Promise<{ status: number; json: any }> {
  const response = await postReplays(new Request("http://127.0.0.1/api/replays", { method: "POST", headers: auth, body: JSON.stringify({ filter, dryRun }) }));
  return { status: response.status, json: await response.json() };
}

async function apply(id: string): Promise<{ status: number; json: any }> {
  const response = await postApply(new Request(`http://127.0.0.1/api/replays/${id}/apply`, { method: "POST", headers: auth }), { params: Promise.resolve({ id }) });
  return { status: response.status, json: await response.json() };
}

async function retries(body: Record<string, unknown>): Promise<{ status: number; json: any }> {
  const response = await postRetries(new Request("http://127.0.0.1/api/dead-letters/retries", { method: "POST", headers: auth, body: JSON.stringify(body) }));
  return { status: response.status, json: await response.json() };
}

async function counts() {
  const client = await db();
  const [decisions, outbox, ledger, audit, openLetters] = await Promise.all([
    client.decision.count(),
    client.outboxMessage.count(),
    client.ledgerEntry.count(),
    client.auditEntry.count(),
    client.deadLetter.count({ where: { status: "open" } }),
  ]);
  return { decisions, outbox, ledger, audit, openLetters };
}

/** The log lines written after `from` characters of the test's log file. */
function logSince(from: number): string {
  return readFileSync(process.env.LOG_FILE!, "utf8").slice(from);
}
const logLength = () => {
  try {
    return readFileSync(process.env.LOG_FILE!, "utf8").length;
  } catch {
    return 0;
  }
};

before(async () => {
  process.env.LAB_PROCESSING_MODE = "inline";
});
after(closeDb);

describe("replay with a money diff", () => {
  let replayId = "";

  test("dry run: a dead-lettered unknown_order event, once its order exists, would credit it and make it paid; nothing is kept", async () => {
    assert.equal((await deliverLab(labEvent("evt_rp_1", "payment.approved", "ord_rp_1", "pay_rp_1", 150_000))).status, 409);
    assert.equal((await createOrder("ord_rp_1", 150_000)).status, 201);
    const before = await counts();
    const logFrom = logLength();
    let signals = 0;
    const stopInbox = onWork("inbox", () => signals++);
    const stopOutbox = onWork("outbox", () => signals++);

    const { status, json } = await preview({ reason: "unknown_order", orderId: "ord_rp_1" });
    stopInbox();
    stopOutbox();
    assert.equal(status, 201);
    replayId = json.id;
    assert.equal(json.status, "previewed");
    assert.deepEqual(json.filter, { reason: "unknown_order", orderId: "ord_rp_1" });
    assert.equal(json.events.length, 1);
    assert.deepEqual(
      { eventId: json.events[0].eventId, status: json.events[0].status, outcome: json.events[0].outcome, orderId: json.events[0].orderId, reason: json.events[0].reason, storedEventId: json.events[0].storedEventId },
      { eventId: "evt_rp_1", status: "dead", outcome: "applied", orderId: "ord_rp_1", reason: "credited 150000 ARS; order ord_rp_1 created -> paid; dead letter resolved", storedEventId: null },
    );
    assert.deepEqual(json.orders, [
      {
        orderId: "ord_rp_1",
        before: { status: "created", credited: 0, refunded: 0 },
        after: { status: "paid", credited: 150_000, refunded: 0 },
        ledger: [{ kind: "credit", amount: 150_000, currency: "ARS", businessKey: "credit:lab:lab:live:pay_rp_1", eventId: "evt_rp_1" }],
        delta: { ARS: 150_000 },
      },
    ]);

    // Nothing of it was kept: no decision row, outbox message, ledger entry, resolution, wake-up or log line of an effect.
    assert.deepEqual(await counts(), before);
    assert.equal(signals, 0);
    assert.doesNotMatch(logSince(logFrom), /"decision"|evt_rp_1/);
    const order = await readOrder("ord_rp_1");
    assert.equal(order.status, "created");
    assert.equal(order.credited, 0);
    assert.equal(await (await db()).webhookEvent.count({ where: { eventId: "evt_rp_1" } }), 0);
    assert.equal((await (await db()).replay.findUniqueOrThrow({ where: { id: replayId } })).status, "previewed");
    assert.equal(await (await db()).replayEvent.count({ where: { replayId } }), 1);
  });

  test("apply: exactly the previewed event, its dead letter resolved by the caller, audited; a second apply applies nothing", async () => {
    const before = await counts();
    const logFrom = logLength();
    const { status, json } = await apply(replayId);
    assert.equal(status, 200);
    assert.equal(json.status, "applied");
    assert.equal(json.applied, 1);
    assert.equal(json.alreadyApplied, false);
    assert.equal(json.appliedBy, "operator (API_TOKEN)");
    assert.deepEqual(
      json.events.map((event: any) => [event.eventId, event.outcome, event.orderId]),
      [["evt_rp_1", "applied", "ord_rp_1"]],
    );
    const order = await readOrder("ord_rp_1");
    assert.equal(order.status, "paid");
    assert.equal(order.credited, 150_000);
    assert.deepEqual(order.ledger.map((entry) => entry.businessKey), ["credit:lab:lab:live:pay_rp_1"]);
    const client = await db();
    const letter = await client.deadLetter.findFirstOrThrow({ where: { eventId: "evt_rp_1" } });
    assert.equal(letter.status, "resolved");
    assert.equal(letter.resolvedBy, "operator (API_TOKEN)");
    assert.equal(letter.resolutionCode, "applied_later");
    const stored = await client.webhookEvent.findFirstOrThrow({ where: { eventId: "evt_rp_1" } });
    assert.equal(stored.status, "processed");
    assert.equal(stored.orderId, "ord_rp_1");
    const decisions = await client.decision.findMany({ where: { eventId: "evt_rp_1", source: "replay" } });
    assert.deepEqual(
      decisions.map((row) => [row.outcome, row.reasonCode, row.orderId]),
      [["applied", "credited", "ord_rp_1"]],
    );
    assert.equal(await client.outboxMessage.count({ where: { orderId: "ord_rp_1" } }), 1);
    // The apply logs its decision once committed (the preview's check above reads the same log).
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.match(logSince(logFrom), /"decision".*"eventId":"evt_rp_1"/);
    const audit = await client.auditEntry.findMany({ where: { action: "replay.apply", targetId: replayId } });
    assert.equal(audit.length, 1);
    assert.equal(audit[0].actorEmail, "operator (API_TOKEN)");
    assert.equal(audit[0].note, "replayed 1 event(s): 1 applied, 1 order(s) reached");
    assert.deepEqual(await counts(), { ...before, decisions: before.decisions + 1, outbox: before.outbox + 1, ledger: before.ledger + 1, audit: before.audit + 1, openLetters: before.openLetters - 1 });

    const again = await apply(replayId);
    assert.equal(again.status, 200);
    assert.deepEqual({ applied: again.json.applied, alreadyApplied: again.json.alreadyApplied, status: again.json.status }, { applied: 0, alreadyApplied: true, status: "applied" });
    assert.deepEqual(await counts(), { ...before, decisions: before.decisions + 1, outbox: before.outbox + 1, ledger: before.ledger + 1, audit: before.audit + 1, openLetters: before.openLetters - 1 });
  });

  test("replaying an event that already booked its effect changes nothing: duplicate, no entry, no delta", async () => {
    const previewed = await preview({ eventIds: ["evt_rp_1"] });
    assert.equal(previewed.status, 201);
    assert.deepEqual(
      previewed.json.events.map((event: any) => [event.eventId, event.status, event.outcome]),
      [["evt_rp_1", "processed", "duplicate"]],
    );
    assert.deepEqual(previewed.json.orders, [
      { orderId: "ord_rp_1", before: { status: "paid", credited: 150_000, refunded: 0 }, after: { status: "paid", credited: 150_000, refunded: 0 }, ledger: [], delta: {} },
    ]);
    const before = await counts();
    const applied = await apply(previewed.json.id);
    assert.equal(applied.status, 200);
    assert.equal(applied.json.applied, 0);
    assert.deepEqual(
      applied.json.events.map((event: any) => event.outcome),
      ["duplicate"],
    );
    const after = await counts();
    assert.equal(after.ledger, before.ledger);
    assert.equal(after.outbox, before.outbox);
    assert.equal((await readOrder("ord_rp_1")).credited, 150_000);
  });

  test("apply answers 409 when the order moved since the preview: nothing applied, the replay is stale for good", async () => {
    assert.equal((await createOrder("ord_rp_2", 80_000)).status, 201);
    assert.equal((await deliverLab(labEvent("evt_rp_2r", "payment.refunded", "ord_rp_2", "pay_rp_2", 80_000))).status, 409);
    const previewed = await preview({ eventIds: ["evt_rp_2r"] });
    assert.equal(previewed.status, 201);
    // The refund came before its payment: still refused, and the preview says so.
    assert.deepEqual(
      previewed.json.events.map((event: any) => [event.outcome, event.category]),
      [["failed", "transition"]],
    );
    assert.deepEqual(previewed.json.orders[0].delta, {});
    // The payment arrives meanwhile: the order is paid, the preview is stale.
    assert.equal((await deliverLab(labEvent("evt_rp_2a", "payment.approved", "ord_rp_2", "pay_rp_2", 80_000))).json.outcome, "applied");
    const before = await counts();
    const stale = await apply(previewed.json.id);
    assert.equal(stale.status, 409);
    assert.equal(stale.json.code, "stale_preview");
    assert.deepEqual(stale.json.orders, ["ord_rp_2"]);
    assert.match(stale.json.error, /preview the replay again/);
    assert.deepEqual(await counts(), before);
    assert.equal((await (await db()).replay.findUniqueOrThrow({ where: { id: previewed.json.id } })).status, "stale");
    assert.equal((await apply(previewed.json.id)).status, 409);

    // A new preview shows the refund now applies, and applying it books it.
    const fresh = await preview({ eventIds: ["evt_rp_2r"] });
    assert.deepEqual(fresh.json.orders[0].delta, { ARS: -80_000 });
    assert.deepEqual([fresh.json.orders[0].before.status, fresh.json.orders[0].after.status], ["paid", "refunded"]);
    assert.equal((await apply(fresh.json.id)).json.applied, 1);
    assert.equal((await readOrder("ord_rp_2")).status, "refunded");
  });

  test("reason matches a dead letter's code whatever its category: an inbox event that gave up on unknown_order", async () => {
    process.env.LAB_PROCESSING_MODE = "inbox";
    try {
      assert.equal((await deliverLab(labEvent("evt_rp_3", "payment.approved", "ord_rp_3", "pay_rp_3", 42_000))).status, 200);
      const worker = new InboxWorker(db, { policy: { baseDelayMs: 60_000, maxDelayMs: 600_000, maxAttempts: 1, maxAgeSeconds: 86_400 } });
      assert.equal((await worker.runOnce())?.kind, "dead_lettered");
      const letter = await (await db()).deadLetter.findFirstOrThrow({ where: { eventId: "evt_rp_3" } });
      assert.equal(letter.category, "retries_exhausted");
      assert.equal(letter.reasonCode, "retries_exhausted_attempts");
      assert.equal((await createOrder("ord_rp_3", 42_000)).status, 201);

      const previewed = await preview({ reason: "unknown_order", endpoint: "lab" });
      assert.equal(previewed.status, 201);
      assert.deepEqual(
        previewed.json.events.map((event: any) => [event.eventId, event.status, event.outcome, event.deadLetterId === letter.id]),
        [["evt_rp_3", "dead", "applied", true]],
      );
      assert.deepEqual(previewed.json.orders.map((order: any) => [order.orderId, order.before.status, order.after.status, order.delta]), [["ord_rp_3", "created", "paid", { ARS: 42_000 }]]);
      assert.equal((await apply(previewed.json.id)).json.applied, 1);
      assert.equal((await (await db()).webhookEvent.findFirstOrThrow({ where: { eventId: "evt_rp_3" } })).status, "processed");
      assert.equal((await (await db()).deadLetter.findUniqueOrThrow({ where: { id: letter.id } })).status, "resolved");
    } finally {
      process.env.LAB_PROCESSING_MODE = "inline";
    }
  });

  test("a payment and its full refund replayed together: both entries listed, the zero sum left out of the delta", async () => {
    assert.equal((await deliverLab(labEvent("evt_rp_z_pay", "payment.approved", "ord_rp_z", "pay_rp_z", 25_000))).status, 409);
    assert.equal((await deliverLab(labEvent("evt_rp_z_ref", "payment.refunded", "ord_rp_z", "pay_rp_z", 25_000))).status, 409);
    assert.equal((await createOrder("ord_rp_z", 25_000)).status, 201);
    const { status, json } = await preview({ orderId: "ord_rp_z" });
    assert.equal(status, 201);
    assert.deepEqual(
      json.events.map((event: any) => [event.eventId, event.outcome]),
      [
        ["evt_rp_z_pay", "applied"],
        ["evt_rp_z_ref", "applied"],
      ],
    );
    assert.deepEqual(json.orders, [
      {
        orderId: "ord_rp_z",
        before: { status: "created", credited: 0, refunded: 0 },
        after: { status: "refunded", credited: 0, refunded: 25_000 },
        ledger: [
          { kind: "credit", amount: 25_000, currency: "ARS", businessKey: "credit:lab:lab:live:pay_rp_z", eventId: "evt_rp_z_pay" },
          { kind: "refund", amount: -25_000, currency: "ARS", businessKey: json.orders[0].ledger[1]?.businessKey, eventId: "evt_rp_z_ref" },
        ],
        delta: {},
      },
    ]);
    assert.match(json.orders[0].ledger[1].businessKey, /^refund:lab:lab:live:pay_rp_z:/);
    // Applied, both dead letters are resolved and the order ends as previewed.
    assert.equal((await apply(json.id)).json.applied, 2);
    assert.equal((await readOrder("ord_rp_z")).status, "refunded");
    assert.equal(await (await db()).deadLetter.count({ where: { orderId: "ord_rp_z", status: "open" } }), 0);
  });

  test("the filter is checked: at least one field, a known reason code, a dry run first, and an empty match is 422", async () => {
    assert.equal((await preview({})).status, 400);
    const unknown = await preview({ reason: "no_such_code" });
    assert.equal(unknown.status, 400);
    assert.match(unknown.json.error, /filter\.reason: must be a reason code/);
    const wet = await preview({ orderId: "ord_rp_1" }, false);
    assert.equal(wet.status, 400);
    assert.equal(wet.json.code, "dry_run_required");
    const none = await preview({ orderId: "ord_rp_nothing" });
    assert.equal(none.status, 422);
    assert.equal(none.json.code, "no_events");
    const missing = await getReplay(new Request("http://127.0.0.1/api/replays/nope", { headers: auth }), { params: Promise.resolve({ id: "nope" }) });
    assert.equal(missing.status, 404);
  });
});

describe("dead-letter bulk retry by filter", () => {
  test("counts first, retries only at that count, each retry audited", async () => {
    for (const name of ["a", "b"]) assert.equal((await deliverLab(labEvent(`evt_rp_bulk_${name}`, "payment.approved", `ord_rp_bulk_${name}`, `pay_rp_bulk_${name}`, 10_000))).status, 409);
    const filter = { reason: "unknown_order", type: "payment.approved", from: "2000-01-01T00:00:00Z" };
    const counted = await retries({ filter, dryRun: true });
    assert.equal(counted.status, 200);
    assert.equal(counted.json.count, 2);
    assert.deepEqual(counted.json.deadLetters.map((letter: any) => letter.eventId).sort(), ["evt_rp_bulk_a", "evt_rp_bulk_b"]);

    assert.equal((await createOrder("ord_rp_bulk_a", 10_000)).status, 201);
    const wrong = await retries({ filter, expectedCount: 3 });
    assert.equal(wrong.status, 409);
    assert.deepEqual([wrong.json.code, wrong.json.count], ["count_changed", 2]);
    assert.equal(await (await db()).auditEntry.count({ where: { action: "dead_letter.retry" } }), 0);

    const done = await retries({ filter, expectedCount: 2 });
    assert.equal(done.status, 200);
    assert.deepEqual(done.json.outcomes, { applied: 1, dead_lettered: 1 });
    assert.equal((await readOrder("ord_rp_bulk_a")).status, "paid");
    const client = await db();
    assert.equal(await client.auditEntry.count({ where: { action: "dead_letter.retry" } }), 2);
    assert.equal(await client.auditEntry.count({ where: { action: "dead_letter.retry_filter" } }), 1);
    assert.equal((await client.deadLetter.findFirstOrThrow({ where: { eventId: "evt_rp_bulk_b" } })).attempts, 2);
    // Now one is left.
    assert.equal((await retries({ filter, dryRun: true })).json.count, 1);
  });
});

describe("who may replay", () => {
  test("a merchant's key may not preview, list, show or apply a replay, nor count or retry dead letters by filter: 403, nothing changes; a support key may", async () => {
    const client = await db();
    const admin = { id: "admin-replay", email: "admin@replay.test", name: "Admin", role: "admin" as const, organizationId: "org_default" };
    const keys: Record<string, string> = {};
    for (const role of ["merchant", "support"] as const) {
      const user = await createUserWithPassword(client, { email: `${role}@replay.test`, name: role, role, password: "quiet-harbour-lantern-2026" });
      if (user.kind !== "created") assert.fail("user not created");
      const key = await createApiKeyAs(client, admin, { userId: user.user.id, name: "replay", days: 30 });
      keys[role] = key.kind === "created" ? key.key : assert.fail("no key");
    }
    assert.equal((await deliverLab(labEvent("evt_rp_acl", "payment.approved", "ord_rp_acl", "pay_rp_acl", 7_000))).status, 409);
    assert.equal((await createOrder("ord_rp_acl", 7_000)).status, 201);
    const as = (role: string) => ({ authorization: `Bearer ${keys[role]}`, "content-type": "application/json" });
    const filter = { eventIds: ["evt_rp_acl"] };
    const replaysBefore = await client.replay.count();
    const before = await counts();

    const post = (role: string) => postReplays(new Request("http://127.0.0.1/api/replays", { method: "POST", headers: as(role), body: JSON.stringify({ filter, dryRun: true }) }));
    const merchantPreview = await post("merchant");
    assert.deepEqual([merchantPreview.status, ((await merchantPreview.json()) as { code: string }).code], [403, "forbidden"]);
    assert.equal((await listReplaysRoute(new Request("http://127.0.0.1/api/replays", { headers: as("merchant") }))).status, 403);
    for (const body of [{ filter, dryRun: true }, { filter, expectedCount: 1 }]) {
      const answer = await postRetries(new Request("http://127.0.0.1/api/dead-letters/retries", { method: "POST", headers: as("merchant"), body: JSON.stringify(body) }));
      assert.equal(answer.status, 403, JSON.stringify(body));
    }
    assert.equal(await client.replay.count(), replaysBefore);

    // Support previews; the merchant can neither read nor apply that replay.
    const previewed = await post("support");
    assert.equal(previewed.status, 201);
    const { id } = (await previewed.json()) as { id: string };
    assert.equal((await getReplay(new Request(`http://127.0.0.1/api/replays/${id}`, { headers: as("merchant") }), { params: Promise.resolve({ id }) })).status, 403);
    const merchantApply = await postApply(new Request(`http://127.0.0.1/api/replays/${id}/apply`, { method: "POST", headers: as("merchant") }), { params: Promise.resolve({ id }) });
    assert.equal(merchantApply.status, 403);
    assert.deepEqual(await counts(), before);
    assert.equal((await client.replay.findUniqueOrThrow({ where: { id } })).status, "previewed");
    assert.equal((await readOrder("ord_rp_acl")).status, "created");

    const supportApply = await postApply(new Request(`http://127.0.0.1/api/replays/${id}/apply`, { method: "POST", headers: as("support") }), { params: Promise.resolve({ id }) });
    assert.equal(supportApply.status, 200);
    assert.equal(((await supportApply.json()) as { applied: number }).applied, 1);
    assert.equal((await client.auditEntry.findFirstOrThrow({ where: { action: "replay.apply", targetId: id } })).actorEmail, "support@replay.test");
  });
});
