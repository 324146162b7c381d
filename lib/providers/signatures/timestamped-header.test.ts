import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Stripe from "stripe";
import { parseTimestampedHeader, signTimestamped, verifyTimestampedHeader } from "@/lib/providers/signatures/timestamped-header";

const stripe = new Stripe("sk_test_dummy");
const SECRET = "whsec_unit_secret_0001";
const keys = { secrets: [{ label: "S[0]", value: SECRET }], retiredSecrets: [], toleranceSeconds: 300 };
const body = Buffer.from('{"id":"evt_1","object":"event"}');
const at = (seconds: number) => new Date(seconds * 1000);

describe("Stripe-style t=,v1= headers", () => {
  test("our signer and Stripe's generateTestHeaderString produce the same header", () => {
    assert.equal(signTimestamped(SECRET, 1700000000, body), stripe.webhooks.generateTestHeaderString({ payload: body.toString(), secret: SECRET, timestamp: 1700000000 }));
  });

  test("Stripe's own constructEvent accepts what our signer signs", () => {
    const header = signTimestamped(SECRET, Math.floor(Date.now() / 1000), body);
    assert.equal(stripe.webhooks.constructEvent(body, header, SECRET).id, "evt_1");
  });

  test("the window is inclusive at 300 s on both sides and refuses 301", () => {
    const header = signTimestamped(SECRET, 1700000000, body);
    const answers = [-301, -300, 300, 301].map((offset) => verifyTimestampedHeader("Stripe-Signature", header, body, keys, at(1700000000 + offset)));
    assert.deepEqual(answers.map((answer) => answer.ok), [false, true, true, false]);
    assert.deepEqual(answers[0], { ok: false, status: 401, reason: "timestamp outside tolerance: 301 s (max 300)", reasonRef: { code: "timestamp_outside_tolerance", params: { age: 301, max: 300 } }, diagnosis: "signature is valid (S[0]) but its timestamp is 301 s in the future: the sender's clock is 301 s ahead", diagnosisRef: { code: "diagnosis_clock_future", params: { secretLabel: "S[0]", seconds: 301 } } });
  });

  test("v0 and unknown schemes are ignored; several v1 values are all kept", () => {
    assert.deepEqual(parseTimestampedHeader("t=1,v0=aa,v1=bb,v2=cc,v1=dd"), { timestamp: "1", v1: ["bb", "dd"] });
    assert.equal(parseTimestampedHeader("t=1,v0=aa"), undefined);
  });

  test("an uppercase hex signature is accepted (hex is case-insensitive)", () => {
    const header = signTimestamped(SECRET, 1700000000, body).replace(/v1=([0-9a-f]+)/, (_, hex: string) => `v1=${hex.toUpperCase()}`);
    assert.deepEqual(verifyTimestampedHeader("Stripe-Signature", header, body, keys, at(1700000000)), { ok: true, secretLabel: "S[0]" });
  });
});

test("a header with two different timestamps is malformed; the same header twice (joined by HTTP) is not", () => {
  assert.equal(parseTimestampedHeader("t=1,t=2,v1=ab"), undefined);
  assert.equal(parseTimestampedHeader("v1=ab,t=2,t=1"), undefined);
  assert.deepEqual(parseTimestampedHeader("t=1,v1=ab, t=1,v1=ab"), { timestamp: "1", v1: ["ab", "ab"] });
});
