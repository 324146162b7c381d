import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { diagnoseClockSkew, diagnoseSignatureMismatch, jsonNestingExceeds, MAX_DIAGNOSED_BODY_BYTES, MAX_DIAGNOSED_JSON_DEPTH, retiredSecretLabelOf, type SignatureScheme } from "@/lib/providers/signatures/diagnose-signature";
import { createTranslator } from "next-intl";
import esAR from "@/lib/i18n/messages/es-AR.json";
import { hmacSha256 } from "@/lib/providers/signatures/hmac";
import { renderReason, type ReasonTranslator } from "@/lib/reasons/render-reason";

const ACTIVE = "active_secret_value_0001";
const RETIRED = "retired_secret_value_0000";
const hexScheme: SignatureScheme = { encoding: "hex", mac: (secret, body) => hmacSha256(secret, "1700000000.", body) };
const body = Buffer.from('{"id":"evt_1","data":{"amount":100}}');

function diagnosed(sent: string, signedBody: Buffer = body) {
  return diagnoseSignatureMismatch({ scheme: hexScheme, body: signedBody, sent: [sent], secrets: [{ label: "ACTIVE[0]", value: ACTIVE }], retiredSecrets: [{ label: "OLD[0]", value: RETIRED }] });
}

/** The diagnosis's English sentence (what the decision row's `diagnosis` and the logs keep). */
function diagnose(sent: string, signedBody: Buffer = body): string | undefined {
  return diagnosed(sent, signedBody)?.reason;
}

describe("signature diagnosis", () => {
  test("names the retired secret by label", () => {
    assert.match(diagnose(hexScheme.mac(RETIRED, body).toString("hex"))!, /^signed with a retired secret \(OLD\[0\]\)/);
  });

  test("names a secret whose rotation overlap ended as expired, with when, in both languages; its label is the refusal's secret label", () => {
    const expiredAt = new Date("2026-12-01T10:00:00.000Z");
    const found = diagnoseSignatureMismatch({ scheme: hexScheme, body, sent: [hexScheme.mac(RETIRED, body).toString("hex")], secrets: [{ label: "secret-2", value: ACTIVE }], retiredSecrets: [{ label: "secret-1", value: RETIRED, expiredAt }] });
    assert.equal(found?.reason, "signed with an expired secret (secret-1, expired 2026-12-01T10:00:00.000Z at the end of its rotation's overlap): the sender still signs with the previous secret; give the sender the current one");
    assert.deepEqual(found?.reasonRef, { code: "diagnosis_expired_secret", params: { secretLabel: "secret-1", expiredAt: "2026-12-01T10:00:00.000Z" } });
    assert.equal(retiredSecretLabelOf(found?.reasonRef), "secret-1");
    const t = createTranslator({ locale: "es-AR", messages: esAR }) as unknown as ReasonTranslator;
    assert.match(renderReason(found!.reasonRef, t, "es-AR"), /^firmado con un secreto vencido \(secret-1, venció el .*2026.* al terminar la superposición de su rotación\): el emisor todavía firma con el secreto anterior; dale el actual$/);
  });

  test("recognises every stray whitespace variant", () => {
    const variants: [string, string][] = [[`${ACTIVE}\n`, "a trailing newline"], [`${ACTIVE}\r\n`, "a trailing CR LF"], [`${ACTIVE} `, "a trailing space"], [`${ACTIVE}\t`, "a trailing tab"], [` ${ACTIVE}`, "a leading space"], [`\n${ACTIVE}`, "a leading newline"]];
    for (const [secret, described] of variants) {
      assert.equal(diagnose(hexScheme.mac(secret, body).toString("hex")), `signed with ACTIVE[0] plus ${described}: the sender's copy of the secret has stray whitespace (Acredita trims its own); remove it at the sender`);
    }
  });

  test("recognises a body re-serialised as compact JSON, pretty JSON or with a trailing newline", () => {
    const pretty = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 2));
    assert.match(diagnose(hexScheme.mac(ACTIVE, body).toString("hex"), pretty)!, /over compact JSON \(JSON\.stringify of the parsed body\)/);
    assert.match(diagnose(hexScheme.mac(ACTIVE, pretty).toString("hex"))!, /over JSON pretty-printed with 2 spaces/);
    assert.match(diagnose(hexScheme.mac(ACTIVE, Buffer.from(`${body}\n`)).toString("hex"))!, /over the body with a trailing newline/);
  });

  test("recognises base64 where hex is expected", () => {
    assert.match(diagnose(hexScheme.mac(ACTIVE, body).toString("base64"))!, /^signature is base64-encoded but this provider's signatures are hex/);
  });

  test("says nothing for an unrelated signature or garbage, and never contains secret material", () => {
    assert.equal(diagnose(hmacSha256("someone_else", body).toString("hex")), undefined);
    assert.equal(diagnose("not-a-signature"), undefined);
    for (const sent of [hexScheme.mac(RETIRED, body).toString("hex"), hexScheme.mac(`${ACTIVE} `, body).toString("hex")]) {
      const text = diagnose(sent)!;
      for (const needle of [ACTIVE, RETIRED, sent]) assert.equal(text.includes(needle), false);
    }
  });

  test("bodies over the size cap get the retired-secret check only", () => {
    const big = Buffer.from(JSON.stringify({ pad: "x".repeat(MAX_DIAGNOSED_BODY_BYTES) }, null, 2));
    const compact = Buffer.from(JSON.stringify(JSON.parse(big.toString())));
    assert.equal(diagnose(hexScheme.mac(ACTIVE, compact).toString("hex"), big), undefined);
    assert.equal(diagnose(hexScheme.mac(`${ACTIVE}\n`, big).toString("hex"), big), undefined);
    assert.equal(diagnose(hexScheme.mac(ACTIVE, big).toString("base64"), big), undefined);
    assert.match(diagnose(hexScheme.mac(RETIRED, big).toString("hex"), big)!, /^signed with a retired secret \(OLD\[0\]\)/);
  });

  test("clock skew names the direction and the exact seconds", () => {
    assert.equal(diagnoseClockSkew("S[0]", 259200).reason, "signature is valid (S[0]) but its timestamp is 259200 s in the past: a replay of an old delivery, or the sender's clock is 259200 s behind");
    assert.equal(diagnoseClockSkew("S[0]", -400).reason, "signature is valid (S[0]) but its timestamp is 400 s in the future: the sender's clock is 400 s ahead");
    assert.deepEqual(diagnoseClockSkew("S[0]", -400).reasonRef, { code: "diagnosis_clock_future", params: { secretLabel: "S[0]", seconds: 400 } });
  });

  test("every diagnosis is a code the dashboard renders in es-AR, secrets named by label only", () => {
    const t = createTranslator({ locale: "es-AR", messages: esAR }) as unknown as ReasonTranslator;
    const pretty = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 2));
    const cases: [ReturnType<typeof diagnosed>, string][] = [
      [diagnosed(hexScheme.mac(RETIRED, body).toString("hex")), "firmado con un secreto retirado (OLD[0]): el emisor todavía firma con un secreto que este endpoint ya no acepta; dale el secreto actual"],
      [diagnosed(hexScheme.mac(ACTIVE, body).toString("base64")), "la firma está en base64 pero las firmas de este proveedor son hex: el MAC coincide con ACTIVE[0], solo la codificación está mal"],
      [diagnosed(hexScheme.mac(`${ACTIVE}\r\n`, body).toString("hex")), "firmado con ACTIVE[0] más un CR LF al final: la copia del secreto del emisor tiene espacios de más (Acredita recorta la suya); quitalos en el emisor"],
      [diagnosed(hexScheme.mac(ACTIVE, pretty).toString("hex")), "la firma coincide con ACTIVE[0] sobre JSON indentado con 2 espacios, no sobre los bytes recibidos: el cuerpo se volvió a serializar entre la firma y la entrega (un proxy o framework recodificó el JSON, o el emisor firmó otra serialización)"],
      [diagnoseClockSkew("S[0]", 259200), "la firma es válida (S[0]) pero su marca de tiempo es de hace 259.200 s: una repetición de una entrega vieja, o el reloj del emisor está 259.200 s atrasado"],
    ];
    for (const [found, spanish] of cases) assert.equal(renderReason(found!.reasonRef, t, "es-AR"), spanish);
  });
});

describe("retiredSecretLabelOf", () => {
  test("reads the retired secret's label from its diagnosis, and nothing from any other", () => {
    assert.equal(retiredSecretLabelOf(diagnosed(hexScheme.mac(RETIRED, body).toString("hex"))?.reasonRef), "OLD[0]");
    assert.equal(retiredSecretLabelOf(diagnoseClockSkew("LAB_WEBHOOK_SECRET[0]", 900).reasonRef), undefined);
    assert.equal(retiredSecretLabelOf(diagnosed(hexScheme.mac(`${ACTIVE} `, body).toString("hex"))?.reasonRef), undefined);
    assert.equal(retiredSecretLabelOf(undefined), undefined);
  });
});

describe("jsonNestingExceeds", () => {
  test("counts arrays and objects, not brackets inside strings or after escaped quotes", () => {
    assert.equal(MAX_DIAGNOSED_JSON_DEPTH, 64);
    assert.equal(jsonNestingExceeds('{"a":[{"b":[]}]}', 4), false);
    assert.equal(jsonNestingExceeds('{"a":[{"b":[[]]}]}', 4), true);
    assert.equal(jsonNestingExceeds(`{"a":"${"[".repeat(100)}"}`, 1), false);
    assert.equal(jsonNestingExceeds(`{"a":"\\"}`, 1), false);
    assert.equal(jsonNestingExceeds(`{"a":"\\\"[[["}`, 1), false);
  });

  test("a body nested past the bound gets no re-serialisation diagnosis, and no exception", () => {
    const deep = Buffer.from(`${"[".repeat(100_000)}${"]".repeat(100_000)}`);
    assert.ok(deep.length <= MAX_DIAGNOSED_BODY_BYTES);
    assert.equal(diagnosed("00".repeat(32), deep), undefined);
    const atBound = Buffer.from(`${"[".repeat(MAX_DIAGNOSED_JSON_DEPTH)}${"]".repeat(MAX_DIAGNOSED_JSON_DEPTH)}`);
    const pretty = Buffer.from(JSON.stringify(JSON.parse(atBound.toString()), null, 2));
    assert.equal(diagnosed(hexScheme.mac(ACTIVE, atBound).toString("hex"), pretty)?.reasonRef.code, "diagnosis_reserialised");
  });
});
