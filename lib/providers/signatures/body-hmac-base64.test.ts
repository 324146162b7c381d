import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, test } from "node:test";
import { signBodyBase64, verifyBodyHmacBase64 } from "@/lib/providers/signatures/body-hmac-base64";

const SECRET = "yolfi_unit_secret_0001";
const keys = { secrets: [{ label: "Y[0]", value: "yolfi_other_secret_0002" }, { label: "Y[1]", value: SECRET }], retiredSecrets: [], toleranceSeconds: 300 };
const body = Buffer.from('{"id":"evt_1","type":"payment.confirmed"}');

describe("Yolfi's base64 body HMAC", () => {
  test("matches the verification code in Yolfi's documentation (HMAC-SHA256 of the raw body, base64)", () => {
    const documented = createHmac("sha256", SECRET).update(body.toString(), "utf8").digest("base64");
    assert.equal(signBodyBase64(SECRET, body), documented);
  });

  test("any configured secret may match; the matching one's label is returned", () => {
    assert.deepEqual(verifyBodyHmacBase64("X-Yolfi-Signature", signBodyBase64(SECRET, body), body, keys), { ok: true, secretLabel: "Y[1]" });
  });

  test("missing, non-base64 and wrong signatures are 401", () => {
    assert.deepEqual(verifyBodyHmacBase64("X-Yolfi-Signature", null, body, keys), { ok: false, status: 401, reason: "missing X-Yolfi-Signature header", reasonRef: { code: "signature_missing", params: { header: "X-Yolfi-Signature" } } });
    assert.deepEqual(verifyBodyHmacBase64("X-Yolfi-Signature", "%%%", body, keys), { ok: false, status: 401, reason: "malformed X-Yolfi-Signature header: expected base64", reasonRef: { code: "signature_malformed_base64", params: { header: "X-Yolfi-Signature" } } });
    const wrong = verifyBodyHmacBase64("X-Yolfi-Signature", signBodyBase64(SECRET, Buffer.from(`${body} `)), body, keys);
    assert.deepEqual([wrong.ok, !wrong.ok && wrong.reason], [false, "signature does not match any configured signing secret"]);
  });
});
