import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Webhook } from "standardwebhooks";
import { decodeStandardWebhooksSecret, parseStandardWebhooksSignatures, signStandardWebhooks, verifyStandardWebhooks } from "@/lib/providers/signatures/standard-webhooks-signature";

const SECRET = `whsec_${Buffer.from("unit-test-key-0001").toString("base64")}`;
const keys = { secrets: [{ label: "SW[0]", value: SECRET }], retiredSecrets: [], toleranceSeconds: 300 };
const body = '{"type":"payment.succeeded","data":{}}';

function headers(id: string, timestamp: number, signature: string): Headers {
  return new Headers({ "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signature });
}

describe("Standard Webhooks signatures", () => {
  test("our signer and the reference library produce the same signature", () => {
    assert.equal(signStandardWebhooks(SECRET, "msg_1", 1700000000, body), new Webhook(SECRET).sign("msg_1", new Date(1700000000 * 1000), body));
  });

  test("the reference library verifies what we sign, and we verify what it signs", () => {
    const now = Math.floor(Date.now() / 1000);
    const ours = signStandardWebhooks(SECRET, "msg_2", now, body);
    assert.deepEqual(new Webhook(SECRET).verify(body, { "webhook-id": "msg_2", "webhook-timestamp": String(now), "webhook-signature": ours }), JSON.parse(body));
    const theirs = new Webhook(SECRET).sign("msg_2", new Date(now * 1000), body);
    assert.deepEqual(verifyStandardWebhooks(headers("msg_2", now, theirs), Buffer.from(body), keys, new Date(now * 1000)), { ok: true, secretLabel: "SW[0]" });
  });

  test("the signature covers the id and the timestamp, not only the body", () => {
    const signature = signStandardWebhooks(SECRET, "msg_3", 1700000000, body);
    const now = new Date(1700000000 * 1000);
    assert.equal(verifyStandardWebhooks(headers("msg_other", 1700000000, signature), Buffer.from(body), keys, now).ok, false);
    assert.equal(verifyStandardWebhooks(headers("msg_3", 1700000001, signature), Buffer.from(body), keys, now).ok, false);
  });

  test("secrets decode with or without the whsec_ prefix; anything else is refused", () => {
    assert.equal(decodeStandardWebhooksSecret(SECRET)?.toString(), "unit-test-key-0001");
    assert.equal(decodeStandardWebhooksSecret(SECRET.slice(6))?.toString(), "unit-test-key-0001");
    assert.equal(decodeStandardWebhooksSecret("whsec_not base64!"), undefined);
    assert.equal(decodeStandardWebhooksSecret("whsec_"), undefined);
  });

  test("only v1 signatures are read from a space-separated header", () => {
    assert.deepEqual(parseStandardWebhooksSignatures("v1,abc= v1a,xyz v2,q v1,def"), ["abc=", "def"]);
  });
});
