import { TEST_DB, TEST_LAB_SECRET, TEST_LAB_SECRET_NEXT } from "@/e2e/support/test-env";
// The log file is read by the last test: every line the process logged.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { closeDb, db, openDb, openSqlite } from "@/lib/db/client";
import { withDatabase } from "@/lib/db/postgres-database";
import { hmacSha256 } from "@/lib/providers/signatures/hmac";
import { receiveWebhook } from "@/lib/ingest/receive-webhook";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { createOrder, deliver, deliverLab, labEvent, readOrder, sentSignatures } from "@/e2e/support/http";
import { onPostgres, storedText } from "@/e2e/support/test-database";

const now = () => Math.floor(Date.now() / 1000);

async function counts(eventId: string) {
  const database = await db();
  return {
    events: await database.webhookEvent.count({ where: { eventId } }),
    decisions: await database.decision.count({ where: { eventId } }),
    deadLetters: await database.deadLetter.count({ where: { eventId } }),
  };
}

before(async () => {
  const orders: [string, number, string][] = [
    ["ord_dup", 2500000, "ARS"],
    ["ord_race", 1850000, "ARS"],
    ["ord_twoids", 4200000, "ARS"],
    ["ord_extra", 3000000, "ARS"],
    ["ord_replay", 1000, "ARS"],
    ["ord_forged", 2000, "ARS"],
    ["ord_rot", 3000, "ARS"],
    ["ord_rev", 1500000, "ARS"],
    ["ord_amount", 5000, "ARS"],
    ["ord_conflict", 7000, "ARS"],
    ["ord_refunded", 8000, "ARS"],
    ["ord_dbdown", 9000, "ARS"],
  ];
  for (const [id, amount, currency] of orders) assert.equal((await createOrder(id, amount, currency)).status, 201);
});
after(closeDb);

describe("idempotency (control 2)", () => {
  test("a second delivery of a stored event, with a new timestamp, is a duplicate and changes nothing", async () => {
    const body = labEvent("evt_dup", "payment.approved", "ord_dup", "pay_dup", 2500000);
    const first = await deliverLab(body);
    assert.deepEqual([first.status, first.json.outcome], [200, "applied"]);
    assert.equal(first.json.reason, "credited 2500000 ARS; order ord_dup created -> paid");
    const second = await deliverLab(body, { timestamp: now() + 60 });
    assert.deepEqual([second.status, second.json.outcome], [200, "duplicate"]);
    assert.equal(second.json.reason, "event evt_dup already stored (status processed); nothing changed");
    const order = await readOrder("ord_dup");
    assert.equal(order.status, "paid");
    assert.equal(order.credited, 2500000);
    assert.deepEqual(order.ledger.map((entry) => [entry.businessKey, entry.amount]), [["credit:lab:lab:live:pay_dup", 2500000]]);
    assert.deepEqual(await counts("evt_dup"), { events: 1, decisions: 2, deadLetters: 0 });
  });

  test("20 concurrent deliveries of one event: one credit, 19 duplicates", async () => {
    const body = labEvent("evt_race", "payment.approved", "ord_race", "pay_race", 1850000);
    const results = await Promise.all(Array.from({ length: 20 }, () => deliverLab(body)));
    assert.equal(results.filter((r) => r.status === 200 && r.json.outcome === "applied").length, 1);
    assert.equal(results.filter((r) => r.status === 200 && r.json.outcome === "duplicate").length, 19);
    const order = await readOrder("ord_race");
    assert.equal(order.credited, 1850000);
    assert.equal(order.ledger.length, 1);
    assert.deepEqual(await counts("evt_race"), { events: 1, decisions: 20, deadLetters: 0 });
  });
});

describe("the money effect's business key (control 3)", () => {
  test("two different event ids for the same payment credit it once", async () => {
    const a = await deliverLab(labEvent("evt_twoids_a", "payment.approved", "ord_twoids", "pay_twoids", 4200000));
    const b = await deliverLab(labEvent("evt_twoids_b", "payment.approved", "ord_twoids", "pay_twoids", 4200000));
    assert.deepEqual([a.status, a.json.outcome, b.status, b.json.outcome], [200, "applied", 200, "duplicate"]);
    assert.equal(b.json.reason, "payment pay_twoids already credited by event evt_twoids_a");
    const order = await readOrder("ord_twoids");
    assert.equal(order.credited, 4200000);
    assert.equal(order.ledger.length, 1);
    assert.equal(order.events.length, 2);
  });

  test("a second, different payment for a paid order is an extra charge for review, not a credit", async () => {
    await deliverLab(labEvent("evt_extra_1", "payment.approved", "ord_extra", "pay_extra_1", 3000000));
    const second = await deliverLab(labEvent("evt_extra_2", "payment.approved", "ord_extra", "pay_extra_2", 3000000));
    assert.deepEqual([second.status, second.json.outcome], [200, "applied"]);
    assert.match(second.json.reason, /recorded as an extra charge for review, not credited/);
    const order = await readOrder("ord_extra");
    assert.equal(order.credited, 3000000);
    const extras = await (await db()).extraCharge.findMany({ where: { orderId: "ord_extra" } });
    assert.deepEqual(extras.map((extra) => [extra.paymentKey, extra.amount, extra.currency, extra.status]), [["pay_extra_2", 3000000, "ARS", "open"]]);
  });
});

describe("signature and timestamp (control 1)", () => {
  test("the same signed request replayed 3 days later is 401 and touches nothing but the decision log", async () => {
    const body = labEvent("evt_replay", "payment.approved", "ord_replay", "pay_replay", 1000);
    const replay = await deliverLab(body, { timestamp: now() - 259200 });
    // Signed 259,200 s before it is sent; the receiver may read its clock a second later.
    assert.deepEqual([replay.status, replay.json.outcome], [401, "rejected"]);
    assert.match(replay.json.reason, /^timestamp outside tolerance: 25920[01] s \(max 300\)$/);
    const future = await deliverLab(body, { timestamp: now() + 301 });
    assert.deepEqual([future.status, future.json.reason], [401, "timestamp outside tolerance: 301 s (max 300)"]);
    const edge = await deliverLab(body, { timestamp: now() - 299 });
    assert.deepEqual([edge.status, edge.json.outcome], [200, "applied"]);
    const decisions = await (await db()).decision.findMany({ where: { eventId: "evt_replay" }, orderBy: { at: "asc" } });
    assert.deepEqual(decisions.map((d) => [d.outcome, d.httpStatus, d.verified]), [["rejected", 401, false], ["rejected", 401, false], ["applied", 200, true]]);
  });

  test("a forged signature is 401, stores no event and is logged as unverified", async () => {
    const body = labEvent("evt_forged", "payment.approved", "ord_forged", "pay_forged", 2000);
    const forged = await deliverLab(body, { secret: "attacker_guessed_key_0000" });
    assert.deepEqual(forged, { status: 401, json: { outcome: "rejected", reason: "signature does not match any configured signing secret" } });
    assert.equal((await readOrder("ord_forged")).credited, 0);
    assert.deepEqual(await counts("evt_forged"), { events: 0, decisions: 1, deadLetters: 0 });
    const decision = await (await db()).decision.findFirstOrThrow({ where: { eventId: "evt_forged" } });
    assert.equal(decision.verified, false);
  });

  test("missing, malformed and non-numeric signature headers are 401 with the reason", async () => {
    const body = labEvent("evt_badheader", "payment.approved", "ord_forged", "pay_bh", 2000);
    assert.deepEqual(await deliver("lab", body, {}), { status: 401, json: { outcome: "rejected", reason: "missing Lab-Signature header" } });
    const malformed = await deliver("lab", body, { "Lab-Signature": "sha256=abc" });
    assert.deepEqual([malformed.status, malformed.json.reason], [401, "malformed Lab-Signature header: expected t=<unix seconds>,v1=<hex>"]);
    const v0only = await deliver("lab", body, { "Lab-Signature": `t=${now()},v0=${"a".repeat(64)}` });
    assert.equal(v0only.status, 401);
    const nonNumeric = await deliver("lab", body, { "lab-signature": `t=soon,v1=${hmacSha256(TEST_LAB_SECRET, "soon.", body).toString("hex")}` });
    assert.deepEqual([nonNumeric.status, nonNumeric.json.reason], [401, "malformed Lab-Signature header: timestamp is not a number"]);
    assert.equal((await counts("evt_badheader")).events, 0);
  });

  test("rotation: either configured secret verifies, with the two v1s in either order, and the matching secret's label is recorded", async () => {
    const body = labEvent("evt_rot", "payment.approved", "ord_rot", "pay_rot", 3000);
    const t = now();
    const good = hmacSha256(TEST_LAB_SECRET_NEXT, `${t}.`, body).toString("hex");
    const stale = hmacSha256("retired_secret_0000", `${t}.`, body).toString("hex");
    const first = await deliver("lab", body, { "LAB-SIGNATURE": `t=${t},v1=${stale},v1=${good}` });
    assert.deepEqual([first.status, first.json.outcome], [200, "applied"]);
    const second = await deliver("lab", body, { "lab-signature": `t=${t},v1=${good},v1=${stale}` });
    assert.deepEqual([second.status, second.json.outcome], [200, "duplicate"]);
    const event = await (await db()).webhookEvent.findFirstOrThrow({ where: { eventId: "evt_rot" } });
    assert.equal(event.secretLabel, "LAB_WEBHOOK_SECRET[1]");
  });
});

describe("the written transition table (control 4)", () => {
  test("a refund before its approval is 409 and a dead letter; the retry after the approval applies and resolves it", async () => {
    const refund = labEvent("evt_rev_refund", "payment.refunded", "ord_rev", "pay_rev", 1500000);
    const early = await deliverLab(refund);
    assert.deepEqual([early.status, early.json.outcome], [409, "dead_lettered"]);
    assert.equal(early.json.reason, "no transition from created on payment.refunded for order ord_rev: payment pay_rev was never credited");
    const again = await deliverLab(refund);
    assert.equal(again.status, 409);
    assert.deepEqual(await counts("evt_rev_refund"), { events: 0, decisions: 2, deadLetters: 1 });
    const letter = await (await db()).deadLetter.findFirstOrThrow({ where: { eventId: "evt_rev_refund" } });
    assert.deepEqual([letter.status, letter.attempts, letter.category, letter.retryable], ["open", 2, "transition", true]);

    const approval = await deliverLab(labEvent("evt_rev_approve", "payment.approved", "ord_rev", "pay_rev", 1500000));
    assert.deepEqual([approval.status, approval.json.outcome], [200, "applied"]);
    const retry = await deliverLab(refund);
    assert.deepEqual([retry.status, retry.json.outcome], [200, "applied"]);
    assert.equal(retry.json.reason, "refunded 1500000 ARS (total 1500000); order ord_rev paid -> refunded; dead letter resolved");
    const order = await readOrder("ord_rev");
    assert.deepEqual([order.status, order.credited, order.refunded], ["refunded", 0, 1500000]);
    assert.deepEqual(order.ledger.map((entry) => [entry.businessKey, entry.amount]), [["credit:lab:lab:live:pay_rev", 1500000], ["refund:lab:lab:live:pay_rev:total:1500000:at:1760181330", -1500000]]);
    const resolved = await (await db()).deadLetter.findFirstOrThrow({ where: { eventId: "evt_rev_refund" } });
    assert.deepEqual([resolved.status, resolved.resolvedBy], ["resolved", "system"]);

    const approvalOfRefunded = await deliverLab(labEvent("evt_rev_late", "payment.approved", "ord_rev", "pay_rev_2", 1500000));
    assert.deepEqual([approvalOfRefunded.status, approvalOfRefunded.json.reason], [409, "no transition from refunded on payment.approved for order ord_rev"]);
  });

  test("an event for an unknown order is 409 and a dead letter; it applies once the order exists", async () => {
    const body = labEvent("evt_unknown", "payment.approved", "ord_later", "pay_later", 4000);
    const first = await deliverLab(body);
    assert.deepEqual([first.status, first.json.outcome, first.json.reason], [409, "dead_lettered", "unknown order ord_later"]);
    assert.equal((await createOrder("ord_later", 4000)).status, 201);
    const retry = await deliverLab(body);
    assert.deepEqual([retry.status, retry.json.outcome], [200, "applied"]);
    assert.equal((await readOrder("ord_later")).credited, 4000);
  });

  test("an amount or currency that differs from the order's is 422 and a dead letter, never a credit", async () => {
    const amount = await deliverLab(labEvent("evt_amount", "payment.approved", "ord_amount", "pay_amount", 4999));
    assert.deepEqual(amount, { status: 422, json: { outcome: "dead_lettered", reason: "amount mismatch for order ord_amount: payment 4999, order 5000 (ARS minor units)" } });
    const currency = await deliverLab(labEvent("evt_currency", "payment.approved", "ord_amount", "pay_currency", 5000, "USD"));
    assert.deepEqual(currency, { status: 422, json: { outcome: "dead_lettered", reason: "currency mismatch for order ord_amount: payment USD, order ARS" } });
    const order = await readOrder("ord_amount");
    assert.deepEqual([order.status, order.credited, order.ledger.length], ["created", 0, 0]);
    const letters = await (await db()).deadLetter.findMany({ where: { orderId: "ord_amount" }, orderBy: { eventId: "asc" } });
    assert.deepEqual(letters.map((l) => [l.eventId, l.category, l.retryable]), [["evt_amount", "amount_mismatch", false], ["evt_currency", "currency_mismatch", false]]);
  });

  test("a stored event id re-sent with a different signed body is a conflict: 409, dead letter, stored event untouched", async () => {
    const original = labEvent("evt_conflict", "payment.approved", "ord_conflict", "pay_conflict", 7000);
    assert.equal((await deliverLab(original)).status, 200);
    const stored = await (await db()).webhookEvent.findFirstOrThrow({ where: { eventId: "evt_conflict" } });
    const tampered = labEvent("evt_conflict", "payment.refunded", "ord_conflict", "pay_conflict", 7000);
    const conflict = await deliverLab(tampered);
    assert.deepEqual(conflict, { status: 409, json: { outcome: "dead_lettered", reason: "event id evt_conflict reused with a different signed body; the stored event was kept" } });
    const after = await (await db()).webhookEvent.findFirstOrThrow({ where: { eventId: "evt_conflict" } });
    assert.deepEqual([after.bodyHash, after.type, after.status], [stored.bodyHash, "payment.approved", "processed"]);
    assert.deepEqual(await counts("evt_conflict"), { events: 1, decisions: 2, deadLetters: 1 });
    assert.deepEqual([(await readOrder("ord_conflict")).status, (await readOrder("ord_conflict")).credited], ["paid", 7000]);
  });
});

describe("bad input and failures (control 5)", () => {
  test("a verified body that is not JSON is 400, one that fails the schema 422; both leave only a decision row", async () => {
    const notJson = "{not json";
    const a = await deliver("lab", notJson, { "Lab-Signature": signTimestamped(TEST_LAB_SECRET, now(), notJson) });
    assert.deepEqual(a, { status: 400, json: { outcome: "rejected", reason: "body is not valid JSON" } });
    const badSchema = JSON.stringify({ id: "evt_schema", type: "payment.approved", data: { payment_id: "p", order_id: "ord_dup", amount: -5, currency: "ARS" } });
    const b = await deliver("lab", badSchema, { "Lab-Signature": signTimestamped(TEST_LAB_SECRET, now(), badSchema) });
    assert.deepEqual([b.status, b.json.outcome, b.json.reason], [422, "rejected", "invalid lab event: data.amount: Too small: expected number to be >=0"]);
    assert.deepEqual(await counts("evt_schema"), { events: 0, decisions: 1, deadLetters: 0 });
  });

  test("an unknown endpoint is 404", async () => {
    const body = labEvent("evt_x", "payment.approved", "ord_dup", "pay_x", 1);
    assert.deepEqual(await deliver("nope", body, {}), { status: 404, json: { outcome: "rejected", reason: "unknown webhook endpoint" } });
  });

  test("a database failure answers 503 so the provider retries, and the retry applies", async () => {
    // SQLite: an empty file (no tables). PostgreSQL: a database that does not exist on the test cluster.
    const broken = onPostgres
      ? await openDb(withDatabase(TEST_DB.url, "acredita_no_such_database"))
      : await openSqlite(`file:${path.join(mkdtempSync(path.join(tmpdir(), "acredita-broken-")), "empty.db")}`, 100);
    const body = labEvent("evt_dbdown", "payment.approved", "ord_dbdown", "pay_dbdown", 9000);
    const headers = new Headers({ "Lab-Signature": signTimestamped(TEST_LAB_SECRET, now(), body) });
    const answer = await receiveWebhook({ endpointName: "lab", headers, body: Buffer.from(body) }, { db: broken });
    assert.deepEqual(answer, { status: 503, body: { outcome: "rejected", reason: "database unavailable, event not stored; retry later" } });
    await broken.$disconnect();
    assert.equal((await readOrder("ord_dbdown")).credited, 0);
    const retry = await deliverLab(body);
    assert.deepEqual([retry.status, retry.json.outcome], [200, "applied"]);
    assert.equal((await readOrder("ord_dbdown")).credited, 9000);
  });

  test("no secret or signature reaches the database file or the logs, and decision rows hold no raw body", async () => {
    if (!onPostgres) await (await db()).$executeRawUnsafe("PRAGMA wal_checkpoint(FULL)");
    const haystack = `${await storedText(TEST_DB)}\n${readFileSync(process.env.LOG_FILE!, "latin1")}`;
    assert.ok(sentSignatures.size >= 20, `signatures sent: ${sentSignatures.size}`);
    assert.match(readFileSync(process.env.LOG_FILE!, "utf8"), /"decision"/);
    for (const needle of [TEST_LAB_SECRET, TEST_LAB_SECRET_NEXT, ...sentSignatures]) assert.equal(haystack.includes(needle), false, `found ${needle.slice(0, 6)}…`);
    const rows = await (await db()).decision.findMany();
    assert.ok(rows.length > 30);
    assert.equal(JSON.stringify(rows).includes("payment_id"), false);
  });
});
