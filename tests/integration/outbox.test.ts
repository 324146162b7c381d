import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { claimNextOutboxMessage } from "@/lib/outbox/outbox-store";
import { OutboxDispatcher } from "@/lib/outbox/outbox-dispatcher";
import { settleOutboxMessage } from "@/lib/outbox/outbox-messages";
import { postWithIdempotencyKey } from "@/lib/outbox/post-with-idempotency-key";
import { verifyTimestampedHeader } from "@/lib/providers/signatures/timestamped-header";
import { TestClock } from "@/e2e/support/clock";
import { createOrder, deliverLab, labEvent, readOrder } from "@/e2e/support/http";
import { closedPort, FakeMerchant } from "@/e2e/support/merchant";
import { runMain } from "@/e2e/support/cli";
import { main as outboxCli } from "@/scripts/outbox";

const merchant = new FakeMerchant();
let fulfilmentUrl = "";

const dispatcher = (clock = new TestClock(), extra: { maxAttempts?: number; timeoutMs?: number } = {}) =>
  new OutboxDispatcher(db, { now: clock.now, random: () => 0.5, baseDelayMs: 10_000, maxDelayMs: 60_000, leaseMs: 5_000, timeoutMs: extra.timeoutMs ?? 2_000, maxAttempts: extra.maxAttempts ?? 3 });

async function message(orderId: string) {
  return (await db()).outboxMessage.findUniqueOrThrow({ where: { idempotencyKey: `fulfilment:${orderId}` } });
}

async function pay(orderId: string, amount: number): Promise<void> {
  assert.equal((await createOrder(orderId, amount)).status, 201);
  const answer = await deliverLab(labEvent(`evt_${orderId}`, "payment.approved", orderId, `pay_${orderId}`, amount));
  assert.equal(answer.json.outcome, "applied");
}

before(async () => {
  // Settings are read on first use: the fulfilment URL must be set before the first delivery.
  fulfilmentUrl = await merchant.start();
  process.env.FULFILMENT_WEBHOOK_URL = fulfilmentUrl;
});
after(async () => {
  await merchant.stop();
  await closeDb();
});

describe("outbox: the fulfilment webhook", () => {
  test("the transition to paid writes one outbox message in the same transaction; a rejected payment writes none", async () => {
    await pay("ord_o1", 2500000);
    const row = await message("ord_o1");
    assert.equal(row.status, "pending");
    assert.equal(row.target, fulfilmentUrl);
    assert.equal(row.attempts, 0);
    const body = JSON.parse(row.body);
    assert.deepEqual({ ...body, paid_at: undefined }, { type: "order.paid", order_id: "ord_o1", amount: 2500000, currency: "ARS", payment_key: "pay_ord_o1", provider: "lab", livemode: true, event_id: "evt_ord_o1", paid_at: undefined });

    assert.equal((await createOrder("ord_o2", 1000)).status, 201);
    assert.equal((await deliverLab(labEvent("evt_o2", "payment.approved", "ord_o2", "pay_o2", 999))).status, 422);
    assert.equal((await deliverLab(labEvent("evt_o1r", "payment.refunded", "ord_o1", "pay_ord_o1", 2500000))).json.outcome, "applied");
    assert.equal(await (await db()).outboxMessage.count(), 1);
  });

  test("the dispatcher sends with the Idempotency-Key and records the 2xx answer", async () => {
    merchant.behaviour = { kind: "status", status: 200 };
    const results = await dispatcher().drain();
    assert.deepEqual(results.map((result) => [result.status, result.detail]), [["sent", "answered 200"]]);
    assert.equal(merchant.requests.length, 1);
    assert.equal(merchant.requests[0].idempotencyKey, "fulfilment:ord_o1");
    assert.equal(JSON.parse(merchant.requests[0].body).order_id, "ord_o1");
    assert.equal(merchant.requests[0].signature, undefined, "unsigned without FULFILMENT_WEBHOOK_SECRET");
    const row = await message("ord_o1");
    assert.equal(row.status, "sent");
    assert.equal(row.lastStatusCode, 200);
    assert.equal(row.attempts, 1);
    assert.equal(row.leaseOwner, null);
  });

  test("a 503 is retried with backoff, then the 200 is recorded; a 400 fails at once", async () => {
    merchant.requests.length = 0;
    await pay("ord_o3", 3000);
    const clock = new TestClock();
    merchant.behaviour = { kind: "status", status: 503 };
    // Retried 7.5 s later: base 10 s, equal jitter with random 0.5.
    assert.deepEqual((await dispatcher(clock).drain()).map((result) => [result.status, result.retryInMs]), [["pending", 7_500]]);
    const pending = await message("ord_o3");
    assert.equal(pending.attempts, 1);
    assert.equal(pending.lastStatusCode, 503);
    assert.equal(pending.lastError, "answered 503");
    assert.equal((await dispatcher(clock).drain()).length, 0, "not due yet");
    clock.advance(8_000);
    merchant.behaviour = { kind: "status", status: 201 };
    assert.deepEqual((await dispatcher(clock).drain()).map((result) => result.status), ["sent"]);
    assert.equal((await message("ord_o3")).attempts, 2);
    assert.deepEqual(merchant.requests.map((request) => request.idempotencyKey), ["fulfilment:ord_o3", "fulfilment:ord_o3"]);

    await pay("ord_o4", 4000);
    merchant.behaviour = { kind: "status", status: 400 };
    assert.deepEqual((await dispatcher().drain()).map((result) => result.status), ["failed"]);
    assert.equal((await message("ord_o4")).lastError, "answered 400: the target refused the message; check its configuration, then resend");
  });

  test("no answer within the timeout makes the message uncertain, and it is never re-sent by itself", async () => {
    merchant.requests.length = 0;
    await pay("ord_o5", 5000);
    merchant.behaviour = { kind: "hang" };
    const clock = new TestClock();
    assert.deepEqual((await dispatcher(clock, { timeoutMs: 300 }).drain()).map((result) => result.status), ["uncertain"]);
    const row = await message("ord_o5");
    assert.equal(row.status, "uncertain");
    assert.equal(row.lastError, "sent, no answer (ETIMEDOUT: no answer within 300 ms): the target may have acted; reconcile before resending");
    clock.advance(3_600_000);
    merchant.behaviour = { kind: "status", status: 200 };
    assert.equal((await dispatcher(clock).drain()).length, 0);
    assert.equal(merchant.requests.length, 1);
  });

  test("each send opens its own connection: a keep-alive socket the target dropped cannot make a message uncertain", async () => {
    merchant.requests.length = 0;
    merchant.behaviour = { kind: "status", status: 200 };
    merchant.dropReusedConnections = true;
    try {
      const first = await postWithIdempotencyKey(fulfilmentUrl, "{}", "ka1", 2_000);
      const second = await postWithIdempotencyKey(fulfilmentUrl, "{}", "ka2", 2_000);
      assert.deepEqual([first, second], [{ kind: "answered", statusCode: 200 }, { kind: "answered", statusCode: 200 }]);
    } finally {
      merchant.dropReusedConnections = false;
    }
  });

  test("a connection reset after the request was sent is uncertain; a refused connection is retried", async () => {
    merchant.requests.length = 0;
    merchant.behaviour = { kind: "reset" };
    const reset = await postWithIdempotencyKey(fulfilmentUrl, "{}", "k1", 2_000);
    assert.equal(reset.kind, "uncertain");
    assert.equal(merchant.requests.length, 1);
    const refused = await postWithIdempotencyKey(`http://127.0.0.1:${await closedPort()}/fulfil`, "{}", "k2", 2_000);
    assert.equal(refused.kind, "not_sent");
    assert.match((refused as { error: string }).error, /^ECONNREFUSED/);
  });

  test("a dispatcher that died between sending and recording leaves the message uncertain once its lease expires", async () => {
    merchant.requests.length = 0;
    await pay("ord_o6", 6000);
    const clock = new TestClock();
    const claimed = await claimNextOutboxMessage(await db(), "dead-dispatcher", clock.now(), 5_000);
    assert.equal(claimed?.idempotencyKey, "fulfilment:ord_o6");
    assert.equal((await dispatcher(clock).drain()).length, 0, "a live lease is left alone");
    assert.equal((await message("ord_o6")).status, "sending");
    clock.advance(5_001);
    merchant.behaviour = { kind: "status", status: 200 };
    assert.equal((await dispatcher(clock).drain()).length, 0);
    const row = await message("ord_o6");
    assert.equal(row.status, "uncertain");
    assert.equal(row.lastError, "the dispatcher stopped while sending (crash or kill): the target may have received it; not re-sent automatically");
    assert.equal(merchant.requests.length, 0);

    assert.equal(await settleOutboxMessage(await db(), row.id, "resend", "ops", "merchant has no record of it"), true);
    assert.deepEqual((await dispatcher(clock).drain()).map((result) => result.status), ["sent"]);
    assert.equal(merchant.requests.length, 1);
    assert.equal(await settleOutboxMessage(await db(), row.id, "resend", "ops", ""), false, "a sent message is not resent");
  });

  test("the outbox CLI lists messages and resends or resolves an uncertain one (exit 0, 1, 2)", async () => {
    // The command's main in this process (e2e/http/cli-smoke.test.ts runs the script once).
    const cli = (...args: string[]) => runMain(outboxCli, args, process.env);
    const uncertain = await cli("list", "--status", "uncertain");
    assert.equal(uncertain.code, 0, uncertain.stderr);
    const lines = uncertain.stdout.trim().split("\n");
    assert.equal(lines.at(-1), "1 outbox message");
    assert.match(lines[0], /^\S+  uncertain  fulfilment:ord_o5  attempts=1  last=-  sent, no answer \(ETIMEDOUT/);
    const id = lines[0].split("  ")[0];
    assert.equal((await cli("resolve", id)).code, 2, "resolve needs a note");
    const resolved = await cli("resolve", id, "merchant", "confirms", "it", "shipped");
    assert.equal(resolved.code, 0, resolved.stderr);
    assert.equal(resolved.stdout, `${id}  resolved\n`);
    assert.equal((await message("ord_o5")).status, "resolved");
    assert.match((await message("ord_o5")).note ?? "", /^resolved by cli:\S+ at \S+: merchant confirms it shipped$/);
    assert.equal((await cli("resend", id)).code, 1, "a resolved message is not resent");
    assert.equal(JSON.parse((await cli("list", "--json")).stdout).count, 5);
  });

  test("with a signing secret the merchant can verify the POST (Acredita-Signature over t.body)", async () => {
    merchant.requests.length = 0;
    merchant.behaviour = { kind: "status", status: 200 };
    await pay("ord_o8", 8000);
    const secret = "fulfilment_secret_0001";
    const signed = new OutboxDispatcher(db, { signingSecret: secret });
    assert.deepEqual((await signed.drain()).map((result) => result.status), ["sent"]);
    const [request] = merchant.requests;
    const verified = verifyTimestampedHeader("Acredita-Signature", request.signature ?? null, Buffer.from(request.body), { secrets: [{ label: "merchant", value: secret }], retiredSecrets: [], toleranceSeconds: 300 }, new Date());
    assert.deepEqual(verified, { ok: true, secretLabel: "merchant" });
    const forged = verifyTimestampedHeader("Acredita-Signature", request.signature ?? null, Buffer.from(request.body), { secrets: [{ label: "merchant", value: "another_secret_00" }], retiredSecrets: [], toleranceSeconds: 300 }, new Date());
    assert.equal(forged.ok, false);
    const row = await message("ord_o8");
    assert.equal(row.body.includes("v1="), false);
  });

  test("an unreachable target is retried up to the maximum attempts, then failed", async () => {
    const port = await closedPort();
    await pay("ord_o7", 7000);
    await (await db()).outboxMessage.update({ where: { idempotencyKey: "fulfilment:ord_o7" }, data: { target: `http://127.0.0.1:${port}/fulfil` } });
    const clock = new TestClock();
    const statuses: string[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push(...(await dispatcher(clock).drain()).map((result) => result.status));
      clock.advance(120_000);
    }
    assert.deepEqual(statuses, ["pending", "pending", "failed"]);
    const row = await message("ord_o7");
    assert.equal(row.attempts, 3);
    assert.match(row.lastError ?? "", /^not sent: ECONNREFUSED.*; gave up after 3 attempts$/);
    assert.equal((await readOrder("ord_o7")).status, "paid");
  });
});
