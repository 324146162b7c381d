import { TEST_LAB_SECRET } from "@/e2e/support/test-env";
// Hardening: property-based tests (fast-check) of the webhook receiver through its route
// handler with real Requests. Whatever arrives (random bytes, random or broken signature headers,
// validly signed random JSON, lab events with huge numbers, unicode and escapes), the receiver:
//   - never answers 500 (or 503: the database is up), only the statuses of the HTTP contract;
//   - records every delivery exactly once: one decision row, or, for a refusal before a valid signature,
//     one counted refusal (RejectionCount) and at most one sampled decision row;
//   - changes money or orders only when the exact bytes were signed with the secret, in time, and the
//     body passes the lab schema (the oracle is the test's own record of what it signed, not the code);
//   - keeps every order consistent with its ledger (never over-credited).
// Run counts stay modest for a 2-core CI; FC_RUNS scales them, FC_SEED replays a failure.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import * as route from "@/app/api/webhooks/[endpoint]/route";
import { closeDb, db } from "@/lib/db/client";
import { flushRejectionCounts } from "@/lib/decisions/rejection-counter";
import { labEventSchema } from "@/lib/providers/lab";
import { hmacSha256 } from "@/lib/providers/signatures/hmac";
import { signStandardWebhooks } from "@/lib/providers/signatures/standard-webhooks-signature";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { createOrder } from "@/e2e/support/http";
import { onPostgres } from "@/e2e/support/test-database";
import { standardWebhooksHeaders, stripeHeader, yolfiSignature } from "@/e2e/support/providers";

// The providers' endpoints exist only with their secrets set (production mode).
const SECRETS = {
  STRIPE_WEBHOOK_SECRET: "whsec_properties_stripe_0001",
  YOLFI_WEBHOOK_SECRET: "yolfi_properties_secret_0001",
  STANDARD_WEBHOOKS_SECRET: `whsec_${Buffer.from("properties-standard-webhooks-key").toString("base64")}`,
  // Production serves them only with the operator's own accounts.
  STRIPE_ACCOUNT_ID: "acct_properties",
  YOLFI_ORG_ID: "org_properties",
  STANDARD_WEBHOOKS_ACCOUNT: "properties-shop",
} as const;
Object.assign(process.env, SECRETS);

// The properties are the receiver's, the same on both databases: SQLite runs them at full count; on
// PostgreSQL (where only the SQL differs) a third as many runs exercise the same statements.
const RUNS = Number(process.env.FC_RUNS ?? (onPostgres ? 20 : 60));
const SEED = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
const CONTRACT_STATUSES = new Set([200, 400, 401, 409, 413, 415, 422]);

const ORDERS = Array.from({ length: 12 }, (_, i) => ({ id: `ord_p${i}`, amount: 1000 * (i + 1), currency: i % 4 === 3 ? "USD" : "ARS" }));
const now = () => Math.floor(Date.now() / 1000);

/** What the sender did with the delivery's signature. Only `valid` and `duplicated` carry an intact, fresh one. */
type SignatureMode = "valid" | "duplicated" | "valid-then-junk" | "junk-then-valid" | "truncated" | "wrong-secret" | "stale" | "signed-other-bytes" | "random" | "none";

interface Delivery {
  body: Uint8Array;
  headers: Headers;
  /** True when these exact bytes were signed with the real secret at a fresh time and the header carries that signature intact. */
  signedBySender: boolean;
  /** True when the header holds nothing but that signature (once or twice): it must verify. Junk before it may carry its own `t=`. */
  mustVerify?: boolean;
}

function labSignature(secret: string, timestamp: number, body: Uint8Array): string {
  return `t=${timestamp},v1=${hmacSha256(secret, `${timestamp}.`, Buffer.from(body)).toString("hex")}`;
}

/** Builds a delivery: `mode` decides what the Lab-Signature header holds. */
function delivery(body: Uint8Array, mode: SignatureMode, junk: string, cut: number, contentType = "application/json"): Delivery {
  const headers = new Headers({ "content-type": contentType });
  const t = now();
  const valid = labSignature(TEST_LAB_SECRET, t, body);
  const intact = (header: string) => header.includes(valid.slice(valid.indexOf("v1=")));
  switch (mode) {
    case "valid":
      headers.set("Lab-Signature", valid);
      break;
    case "duplicated":
      headers.append("Lab-Signature", valid);
      headers.append("Lab-Signature", valid);
      break;
    case "valid-then-junk":
      headers.append("Lab-Signature", valid);
      headers.append("Lab-Signature", junk);
      break;
    case "junk-then-valid":
      headers.append("Lab-Signature", junk);
      headers.append("Lab-Signature", valid);
      break;
    case "truncated":
      headers.set("Lab-Signature", valid.slice(0, cut % valid.length));
      break;
    case "wrong-secret":
      headers.set("Lab-Signature", labSignature("attacker_guessed_key_0000", t, body));
      break;
    case "stale":
      headers.set("Lab-Signature", labSignature(TEST_LAB_SECRET, t - 301 - (cut % 100_000), body));
      break;
    case "signed-other-bytes":
      // Signed as the sender meant it, then altered on the way (a trailing CRLF added).
      headers.set("Lab-Signature", valid);
      return { body: Buffer.concat([Buffer.from(body), Buffer.from("\r\n")]), headers, signedBySender: false };
    case "random":
      if (junk.trim() !== "") headers.set("Lab-Signature", junk);
      break;
    case "none":
      break;
  }
  const header = headers.get("Lab-Signature") ?? "";
  const signedBySender = (mode === "valid" || mode === "duplicated" || mode === "valid-then-junk" || mode === "junk-then-valid") && intact(header);
  return { body, headers, signedBySender, mustVerify: mode === "valid" || mode === "duplicated" };
}

/** Header values a client can send: visible ASCII, space, tab and Latin-1 (undici refuses CR, LF, NUL). */
const headerValue = fc.string({ unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }), fc.constant(0x09)).map((code) => String.fromCharCode(code)), maxLength: 120 });

/** Header values shaped like signature headers, with broken parts. */
const signatureLike = fc.oneof(
  headerValue,
  fc.tuple(fc.oneof(fc.integer().map(String), headerValue), fc.oneof(fc.stringMatching(/^[0-9a-f]{0,70}$/), headerValue)).map(([t, v]) => `t=${t},v1=${v}`),
  fc.constantFrom("t=,v1=", "v1=", "t=1", ",,,,", "t=1,t=2,v1=zz", `t=${"9".repeat(40)},v1=${"a".repeat(64)}`, "t=-1,v1=00", "t=1e3,v1=" + "0".repeat(64)),
);

const signatureMode = fc.constantFrom<SignatureMode>("valid", "duplicated", "valid-then-junk", "junk-then-valid", "truncated", "wrong-secret", "stale", "signed-other-bytes", "random", "none");

/** Text with the characters that break naive receivers: line/paragraph separators, escapes, CR/LF, NUL, emoji. */
const hostileText = fc.oneof(
  fc.stringMatching(/^[a-z0-9_]{1,12}$/),
  fc.string({ unit: "binary", maxLength: 24 }),
  fc.constantFrom("evt\u2028x", "evt\u2029y", "\u001B[31mred", "line\r\nbreak", "nul\u0000byte", "é ñ ü", "😀", "", " ", "a".repeat(256), "\\u0000", "</script>", "'; DROP TABLE Decision; --"),
);

/** An amount as raw JSON number text, from the exact prices to the absurd. */
const amountText = fc.oneof(
  fc.constantFrom(...ORDERS.map((order) => String(order.amount))),
  fc.constantFrom("1e400", "-1e400", "-1", "0", "-0", "1.5", "1000.0", "1e3", "2147483647", "2147483648", "9007199254740993", "123456789012345678901234567890", "1e-7", "null", '"1000"', "true", "[]", "{}"),
  fc.integer().map(String),
);

/** Serialises a value like JSON.stringify, optionally escaping every non-ASCII character as \\uXXXX. */
function toJson(value: unknown, escapeNonAscii: boolean): string {
  const text = JSON.stringify(value);
  return escapeNonAscii ? text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) : text;
}

/** Raw number texts JSON.parse reads as exactly `amount` (senders differ in how they print numbers). */
const sameAmount = (amount: number) => fc.constantFrom(String(amount), `${amount}.0`, `${amount / 1000}e3`, `${amount}E0`);

type Field = "id" | "type" | "orderId" | "paymentId" | "amount" | "currency";

/**
 * A lab-shaped event as raw bytes: a coherent event for one of the orders (so that the money path is
 * reached), in which one field is replaced by hostile text or an absurd number half of the time; JSON
 * escapes, a BOM, spaces or a CRLF around it, as some senders do.
 */
const labLikeBody = fc
  .record({
    order: fc.constantFrom(...ORDERS),
    id: fc.oneof(fc.stringMatching(/^evt_[a-z0-9]{1,6}$/), hostileText),
    type: fc.constantFrom("payment.approved", "payment.approved", "payment.refunded"),
    paymentId: fc.stringMatching(/^pay_[a-z0-9]{1,3}$/),
    broken: fc.option(fc.constantFrom<Field>("id", "type", "orderId", "paymentId", "amount", "currency"), { freq: 2 }),
    hostile: hostileText,
    absurd: amountText,
    lowerCurrency: fc.boolean(),
    escape: fc.boolean(),
    suffix: fc.constantFrom("", "", "\r\n", "\n", "  "),
    prefix: fc.constantFrom("", "", "", " ", "\ufeff"),
  })
  .chain((r) => sameAmount(r.order.amount).map((amountText) => ({ ...r, amountText })))
  .map((r) => {
    const pick = (field: Field, value: string) => (r.broken === field ? r.hostile : value);
    const amount = r.broken === "amount" ? r.absurd : r.amountText;
    const currency = r.lowerCurrency ? r.order.currency.toLowerCase() : r.order.currency;
    const text = `{"id":${toJson(pick("id", r.id), r.escape)},"type":${toJson(pick("type", r.type), r.escape)},"created":1760181330,"data":{"payment_id":${toJson(pick("paymentId", r.paymentId), r.escape)},"order_id":${toJson(pick("orderId", r.order.id), r.escape)},"amount":${amount},"currency":${toJson(pick("currency", currency), r.escape)}}}`;
    return new Uint8Array(Buffer.from(r.prefix + text + r.suffix, "utf8"));
  });

/** True when the body, decoded as the receiver decodes it, passes the lab schema. */
function schemaValid(body: Uint8Array): boolean {
  try {
    return labEventSchema.safeParse(JSON.parse(Buffer.from(body).toString("utf8"))).success;
  } catch {
    return false;
  }
}

async function send(item: Delivery, endpoint = "lab"): Promise<{ status: number; json: { outcome: string; reason: string } }> {
  const request = new Request(`http://127.0.0.1/api/webhooks/${endpoint}`, { method: "POST", body: item.body as Uint8Array<ArrayBuffer>, headers: item.headers });
  const response = await route.POST(request, { params: Promise.resolve({ endpoint }) });
  return { status: response.status, json: await response.json() };
}

/** Everything a delivery can change, as one comparable value. */
async function state() {
  const database = await db();
  await flushRejectionCounts();
  const [decisions, refusals, events, ledger, extraCharges, deliveries, deadLetters, orders] = await Promise.all([
    database.decision.count(),
    database.rejectionCount.aggregate({ _sum: { count: true } }).then((sum) => sum._sum.count ?? 0),
    database.webhookEvent.count(),
    database.ledgerEntry.count(),
    database.extraCharge.count(),
    database.delivery.count(),
    database.deadLetter.count(),
    database.order.findMany({ orderBy: { id: "asc" }, select: { id: true, status: true, refundedAmount: true } }),
  ]);
  return { decisions, refusals, events, ledger, extraCharges, deliveries, deadLetters, orders: orders.map((o) => `${o.id}:${o.status}:${o.refundedAmount}`).join(" ") };
}

/** Every order agrees with its ledger: created = nothing credited, paid = price minus refunds, refunded = 0. */
async function assertBooksConsistent(): Promise<void> {
  const database = await db();
  const [orders, sums] = await Promise.all([database.order.findMany(), database.ledgerEntry.groupBy({ by: ["orderId"], _sum: { amount: true }, _count: true })]);
  const credited = new Map(sums.map((sum) => [sum.orderId, sum._sum.amount ?? 0]));
  for (const order of orders) {
    const sum = credited.get(order.id) ?? 0;
    if (order.status === "created") assert.equal(sum, 0, `${order.id} created but credited ${sum}`);
    else if (order.status === "paid") assert.equal(sum, order.amount - order.refundedAmount, `${order.id} paid: credited ${sum}`);
    else if (order.status === "refunded") assert.deepEqual([sum, order.refundedAmount], [0, order.amount], `${order.id} refunded`);
    else assert.fail(`${order.id} has status ${order.status}`);
  }
}

/**
 * Each delivery is recorded once: a decision row, or (refused before a valid signature: 400, 401, 413,
 * 415) one counted refusal with at most one sampled decision row.
 */
function assertRecordedOnce(before: Awaited<ReturnType<typeof state>>, after: Awaited<ReturnType<typeof state>>, status: number): void {
  const rows = after.decisions - before.decisions;
  const counted = after.refusals - before.refusals;
  if (counted === 0) assert.equal(rows, 1, `status ${status}: exactly one decision row per delivery`);
  else {
    assert.deepEqual([counted, rows <= 1], [1, true], `status ${status}: one counted refusal, at most one sampled row`);
    assert.ok([400, 401, 413, 415].includes(status), `status ${status} counted as a refusal before the signature`);
  }
}

/** Sends one delivery and checks the per-delivery invariants; returns the answer. */
async function deliverAndCheck(item: Delivery) {
  const before = await state();
  const answer = await send(item);
  const after = await state();
  assert.ok(CONTRACT_STATUSES.has(answer.status), `status ${answer.status}: ${answer.json.reason}`);
  assert.equal(typeof answer.json.reason, "string");
  assertRecordedOnce(before, after, answer.status);
  const effectAllowed = item.signedBySender && schemaValid(item.body);
  if (!effectAllowed) {
    // Not signed by the sender or not a lab event: nothing but the decision row may change.
    assert.deepEqual({ ...after, decisions: 0, refusals: 0 }, { ...before, decisions: 0, refusals: 0 }, `changed state (status ${answer.status}, ${answer.json.reason})`);
  }
  if (answer.status !== 200) {
    // A refusal never leaves an effect; a dead letter is the only other row it may add.
    assert.deepEqual({ ...after, decisions: 0, refusals: 0, deadLetters: 0 }, { ...before, decisions: 0, refusals: 0, deadLetters: 0 }, `status ${answer.status} changed state`);
  }
  if (item.mustVerify) assert.notEqual(answer.status, 401, `a delivery signed by the sender was refused: ${answer.json.reason}`);
  return answer;
}

// endOnFailure: shrinking replays deliveries against a database that has moved on, so it would mislead.
const params = (runs: number) => ({ numRuns: Math.max(1, Math.round(runs)), seed: SEED, endOnFailure: true, includeErrorInReport: true });

before(async () => {
  for (const order of ORDERS) assert.equal((await createOrder(order.id, order.amount, order.currency)).status, 201);
  // The examples below get their own orders: the generated deliveries may have paid or refunded any of ORDERS.
  for (const [id, amount] of [["ord_x0", 1000], ["ord_x1", 2000], ["ord_x2", 3000]] as const) assert.equal((await createOrder(id, amount)).status, 201);
});
after(closeDb);

describe("the receiver under generated hostile input", () => {
  test("random bytes with any signature header: never a 500, recorded once each, no effect unless signed and valid", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2_048 }), signatureMode, signatureLike, fc.nat(), async (bytes, mode, junk, cut) => {
        const answer = await deliverAndCheck(delivery(bytes, mode, junk, cut));
        // Validly signed bytes that are not a lab event are 400 (not JSON) or 422 (schema); nothing is applied.
        if (mode === "valid" && !schemaValid(bytes)) assert.ok(answer.status === 400 || answer.status === 422, `status ${answer.status}`);
      }),
      params(RUNS),
    );
    await assertBooksConsistent();
  });

  test("validly signed random JSON is 422 (or applied only when it is a lab event)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.json({ maxDepth: 4 }), fc.constantFrom("", "\r\n", " \n"), async (json, suffix) => {
        const body = new Uint8Array(Buffer.from(json + suffix, "utf8"));
        const answer = await deliverAndCheck(delivery(body, "valid", "", 0));
        if (!schemaValid(body)) assert.deepEqual([answer.status, answer.json.outcome], [422, "rejected"]);
      }),
      params(RUNS),
    );
    await assertBooksConsistent();
  });

  test("lab-shaped events with huge numbers, unicode and escapes, under every kind of signature header", async () => {
    let applied = 0;
    await fc.assert(
      fc.asyncProperty(labLikeBody, signatureMode, signatureLike, fc.nat(), async (body, mode, junk, cut) => {
        const answer = await deliverAndCheck(delivery(body, mode, junk, cut));
        if (answer.json.outcome === "applied") applied++;
        await assertBooksConsistent();
      }),
      // At least 120: about 1 in 13 of these deliveries is applied, and fewer runs could apply none.
      params(Math.max(RUNS * 3, 120)),
    );
    // The generator must reach the money path, or the property proves little.
    assert.ok(applied > 0, "no generated delivery was applied");
  });

  test("random header values in every header the receiver reads, duplicated or not", async () => {
    await fc.assert(
      fc.asyncProperty(labLikeBody, fc.array(fc.tuple(fc.constantFrom("Lab-Signature", "lab-signature", "Content-Type", "Content-Length", "X-Forwarded-For", "Stripe-Signature", "webhook-id"), headerValue), { maxLength: 6 }), async (body, pairs) => {
        const headers = new Headers({ "content-type": "application/json" });
        for (const [name, value] of pairs) {
          // A Content-Length that disagrees with the body is the server's parser's business, not a handler's.
          if (name !== "Content-Length") headers.append(name, value);
        }
        await deliverAndCheck({ body, headers, signedBySender: false });
      }),
      params(RUNS),
    );
  });

  test("a sequence of signed deliveries with retries, duplicates and refunds keeps the books consistent", async () => {
    let duplicates = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(labLikeBody, fc.constantFrom<SignatureMode>("valid", "valid", "duplicated", "stale", "signed-other-bytes"), fc.nat({ max: 3 })), { minLength: 1, maxLength: 8 }), async (steps) => {
        for (const [body, mode, repeats] of steps) {
          // The provider's retries re-sign the same bytes: a duplicate, never a second effect.
          for (let copy = 0; copy <= repeats; copy++) {
            const answer = await deliverAndCheck(delivery(body, mode, "", 0));
            if (answer.json.outcome === "duplicate") duplicates++;
          }
        }
        await assertBooksConsistent();
      }),
      params(RUNS / 3),
    );
    assert.ok(duplicates > 0, "no generated retry was answered duplicate");
  });
});

describe("the other providers under validly signed garbage", () => {
  /**
   * Headers each provider's sender would put on `body`, signed with the endpoint's secret: by the
   * provider's own package for text (it signs strings as UTF-8), by Acredita's signers (checked against
   * those packages in their own tests) for arbitrary bytes.
   */
  const signers: Record<string, (body: Buffer, id: string, text: boolean) => Headers> = {
    stripe: (body, _id, text) => {
      const secret = SECRETS.STRIPE_WEBHOOK_SECRET;
      const header = text ? stripeHeader(body.toString("utf8"), secret) : signTimestamped(secret, Math.floor(Date.now() / 1000), body);
      return new Headers({ "content-type": "application/json; charset=utf-8", "Stripe-Signature": header });
    },
    yolfi: (body, id) => new Headers({ "content-type": "application/json", "X-Yolfi-Signature": yolfiSignature(body, SECRETS.YOLFI_WEBHOOK_SECRET), "X-Yolfi-Event-ID": id }),
    "standard-webhooks": (body, id, text) => {
      const secret = SECRETS.STANDARD_WEBHOOKS_SECRET;
      if (text) return new Headers({ "content-type": "application/json", ...standardWebhooksHeaders(id, body.toString("utf8"), secret) });
      const t = Math.floor(Date.now() / 1000);
      return new Headers({ "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(t), "webhook-signature": signStandardWebhooks(secret, id, t, body) });
    },
  };

  for (const [endpoint, sign] of Object.entries(signers)) {
    test(`${endpoint}: signed random JSON or bytes never moves money, never a 500, recorded once each`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.json({ maxDepth: 4 }).map((json) => ({ body: Buffer.from(json, "utf8"), text: true })), fc.uint8Array({ maxLength: 1_024 }).map((bytes) => ({ body: Buffer.from(bytes), text: false }))), fc.stringMatching(/^[a-z0-9_]{1,20}$/), async ({ body, text }, id) => {
          const before = await state();
          const answer = await send({ body: new Uint8Array(body), headers: sign(body, `evt_${id}`, text), signedBySender: true }, endpoint);
          const after = await state();
          assert.ok(CONTRACT_STATUSES.has(answer.status), `status ${answer.status}: ${answer.json.reason}`);
          assert.notEqual(answer.status, 401, answer.json.reason);
          assertRecordedOnce(before, after, answer.status);
          // An unhandled event type may be stored (200 ignored); money and orders never move.
          assert.deepEqual([after.ledger, after.extraCharges, after.deliveries, after.orders], [before.ledger, before.extraCharges, before.deliveries, before.orders]);
        }),
        params(RUNS / 2),
      );
    });
  }
});

describe("escapes and line endings, signed as sent", () => {
  test("an event id with U+2028, U+2029 and ESC is stored and logged as received, and a body ending in CRLF verifies", async () => {
    const id = "evt_\u2028\u2029\u001b[0m";
    const raw = `{"id":${JSON.stringify(id)},"type":"payment.approved","created":1760181330,"data":{"payment_id":"pay_escape","order_id":"ord_x0","amount":1000,"currency":"ARS"}}\r\n`;
    const body = new Uint8Array(Buffer.from(raw, "utf8"));
    const answer = await deliverAndCheck(delivery(body, "valid", "", 0));
    assert.deepEqual([answer.status, answer.json.outcome], [200, "applied"]);
    const stored = await (await db()).webhookEvent.findFirstOrThrow({ where: { eventId: id } });
    assert.equal(stored.eventId, id);
    const decision = await (await db()).decision.findFirstOrThrow({ where: { eventId: id } });
    assert.deepEqual([decision.outcome, decision.httpStatus, decision.verified], ["applied", 200, true]);
  });

  test("the same event with \\u escapes instead of raw characters is other bytes: a conflict, not a duplicate", async () => {
    const escaped = `{"id":"evt_\\u2028\\u2029\\u001b[0m","type":"payment.approved","created":1760181330,"data":{"payment_id":"pay_escape","order_id":"ord_x0","amount":1000,"currency":"ARS"}}\r\n`;
    const answer = await deliverAndCheck(delivery(new Uint8Array(Buffer.from(escaped)), "valid", "", 0));
    assert.deepEqual([answer.status, answer.json.outcome], [409, "dead_lettered"]);
  });

  test("a body signed without its trailing CRLF but sent with it is 401", async () => {
    const raw = `{"id":"evt_crlf","type":"payment.approved","created":1760181330,"data":{"payment_id":"pay_crlf","order_id":"ord_x1","amount":2000,"currency":"ARS"}}`;
    const answer = await deliverAndCheck(delivery(new Uint8Array(Buffer.from(raw)), "signed-other-bytes", "", 0));
    assert.deepEqual(answer, { status: 401, json: { outcome: "rejected", reason: "signature does not match any configured signing secret" } });
  });

  test("deep nesting and a 1e400 amount, validly signed, are refused without a 500", async () => {
    const deep = new Uint8Array(Buffer.from("[".repeat(200_000) + "]".repeat(200_000)));
    assert.deepEqual((await deliverAndCheck(delivery(deep, "valid", "", 0))).status, 422);
    const huge = new Uint8Array(Buffer.from(`{"id":"evt_huge","type":"payment.approved","data":{"payment_id":"pay_huge","order_id":"ord_x2","amount":1e400,"currency":"ARS"}}`));
    const answer = await deliverAndCheck(delivery(huge, "valid", "", 0));
    assert.deepEqual([answer.status, answer.json.reason], [422, "invalid lab event: data.amount: Invalid input: expected number, received Infinity"]);
  });
});
