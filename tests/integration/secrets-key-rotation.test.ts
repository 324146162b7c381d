import { TEST_DB } from "@/e2e/support/test-env";
// Rotating ACREDITA_SECRETS_KEY on a database with stored signing secrets: `npm run secrets -- reencrypt`
// moves every secret under the first key listed (counts as JSON), deliveries keep verifying with only the
// new key, and what a start refuses is named: the variable unset, a key list without the secrets' key, a
// stored secret altered. `npm start` itself refuses such a database, naming the variable.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { forgetCachedEndpoints } from "@/lib/endpoints/data-endpoints";
import { createEndpoint, type EndpointActor } from "@/lib/endpoints/endpoint-store";
import { receiveWebhook } from "@/lib/ingest/receive-webhook";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { ciphertextKeyId } from "@/lib/secrets/secret-box";
import { parseSecretsKeys } from "@/lib/secrets/secrets-key";
import { reencryptStoredSecrets, storedSecretsIssues } from "@/lib/endpoints/stored-secrets";
import { runMain } from "@/e2e/support/cli";
import { main as secretsMain } from "@/scripts/secrets";
import { main as npmStart } from "@/scripts/start";

const KEY_A = randomBytes(32).toString("base64");
const KEY_B = randomBytes(32).toString("base64");
const ID_A = parseSecretsKeys(KEY_A)[0].id;
const ID_B = parseSecretsKeys(KEY_B)[0].id;
process.env.ACREDITA_SECRETS_KEY = KEY_A;

const operator: EndpointActor = { id: "api-token", email: "operator (API_TOKEN)", operator: true };
const secrets: string[] = [];
const labIds: string[] = [];

/** `npm run secrets -- <args>` (its main, in this process) on this file's database with `key` as ACREDITA_SECRETS_KEY. */
async function secretsCli(key: string | undefined, ...args: string[]) {
  const run = await runMain(secretsMain, args, { DATABASE_URL: TEST_DB.url, LOG_LEVEL: "silent", ...(key === undefined ? {} : { ACREDITA_SECRETS_KEY: key }) });
  return { code: run.code, stdout: run.stdout.trim(), stderr: run.stderr.trim() };
}

function deliverLab(id: string, secret: string, eventId: string) {
  const now = new Date();
  const body = JSON.stringify({ id: eventId, type: "payment.approved", created: 1760181330, data: { payment_id: `pay_${eventId}`, order_id: "ord_none", amount: 1, currency: "ARS" } });
  return receiveWebhook({ endpointName: id, headers: new Headers({ "content-type": "application/json", "Lab-Signature": signTimestamped(secret, Math.floor(now.getTime() / 1000), body) }), body: Buffer.from(body), now });
}

async function storedKeyIds(): Promise<string[]> {
  const rows = await (await db()).endpointSecret.findMany({ orderBy: { id: "asc" }, select: { ciphertext: true } });
  return rows.map((row) => ciphertextKeyId(row.ciphertext ?? "") ?? "?");
}

before(async () => {
  for (const account of ["lab-key-1", "lab-key-2"]) {
    const created = await createEndpoint(await db(), { provider: "lab", account, livemode: true, processingMode: "inline" }, operator);
    assert.equal(created.kind, "created");
    if (created.kind === "created") {
      labIds.push(created.endpoint.id);
      secrets.push(created.secret!);
    }
  }
  const stripe = await createEndpoint(await db(), { provider: "stripe", account: "acct_keyrotation1", livemode: true, secret: "whsec_key_rotation_stripe_0001" }, operator);
  assert.equal(stripe.kind, "created");
  secrets.push("whsec_key_rotation_stripe_0001");
});
after(closeDb);

describe("ACREDITA_SECRETS_KEY on a database with stored secrets", () => {
  test("what a start checks: nothing to say under the right key; the variable named when unset, malformed or missing the secrets' key", async () => {
    const database = await db();
    assert.deepEqual(await storedKeyIds(), [ID_A, ID_A, ID_A]);
    assert.deepEqual(await storedSecretsIssues(database, { ACREDITA_SECRETS_KEY: KEY_A }), []);
    assert.deepEqual(await storedSecretsIssues(database, { ACREDITA_SECRETS_KEY: `${KEY_B},${KEY_A}` }), []);
    assert.deepEqual(await storedSecretsIssues(database, {}), [`ACREDITA_SECRETS_KEY: is not set, but the database holds 3 endpoint secrets encrypted under key ${ID_A}; set it to the key (or keys) they were encrypted with`]);
    assert.deepEqual(await storedSecretsIssues(database, { ACREDITA_SECRETS_KEY: KEY_B }), [`ACREDITA_SECRETS_KEY: 3 stored endpoint secrets are encrypted under key ${ID_A}, which it does not list (it lists ${ID_B}); add that key`]);
    assert.deepEqual(await storedSecretsIssues(database, { ACREDITA_SECRETS_KEY: "not base64!" }), ["ACREDITA_SECRETS_KEY: must be 32 random bytes in base64 (e.g. the output of `openssl rand -base64 32`)"]);
  });

  test("npm start refuses the database while no listed key decrypts its secrets, naming the variable; nothing is served", async () => {
    const start = (key: string | undefined) =>
      runMain(npmStart, [], { PATH: process.env.PATH, HOME: process.env.HOME, NEXT_TELEMETRY_DISABLED: "1", DATABASE_URL: TEST_DB.url, AUTH_SECRET: "key-rotation-test-auth-secret-0123456789", LOG_LEVEL: "silent", ...(key === undefined ? {} : { ACREDITA_SECRETS_KEY: key }) });
    const unset = await start(undefined);
    assert.deepEqual([unset.code, unset.stderr], [1, `Acredita cannot start:\n  ACREDITA_SECRETS_KEY: is not set, but the database holds 3 endpoint secrets encrypted under key ${ID_A}; set it to the key (or keys) they were encrypted with\n`]);
    assert.match(unset.stdout, /ACREDITA_SECRETS_KEY not set: no data endpoint secret can be stored/);
    const other = await start(KEY_B);
    assert.deepEqual([other.code, other.stderr], [1, `Acredita cannot start:\n  ACREDITA_SECRETS_KEY: 3 stored endpoint secrets are encrypted under key ${ID_A}, which it does not list (it lists ${ID_B}); add that key\n`]);
    assert.match(other.stdout, new RegExp(`ACREDITA_SECRETS_KEY set \\(key ${ID_B} encrypts\\)`));
    const malformed = await start(`${KEY_A},short`);
    assert.deepEqual(malformed, { code: 1, stdout: "", stderr: "Acredita cannot start:\n  ACREDITA_SECRETS_KEY (key 2 of 2): must be 32 random bytes in base64 (e.g. the output of `openssl rand -base64 32`)\n" });
  });

  test("npm run secrets -- reencrypt moves every secret under the first key and prints the counts; a second run changes nothing; the old key alone is refused", async () => {
    assert.deepEqual(await secretsCli(undefined, "reencrypt"), { code: 2, stdout: "", stderr: "secrets: ACREDITA_SECRETS_KEY is not set: signing secrets are stored encrypted under it. Set it to 32 random bytes in base64 (openssl rand -base64 32) on every server, receiver and worker, then retry" });
    assert.deepEqual(await secretsCli(KEY_A, "rotate"), { code: 2, stdout: "", stderr: "usage: npm run secrets -- reencrypt | check" });
    const first = await secretsCli(`${KEY_B},${KEY_A}`, "reencrypt");
    assert.deepEqual([first.code, JSON.parse(first.stdout)], [0, { total: 3, reencrypted: 3, unchanged: 0, failed: 0, failures: [], keyId: ID_B }]);
    assert.deepEqual(await storedKeyIds(), [ID_B, ID_B, ID_B]);
    assert.deepEqual(await reencryptStoredSecrets(await db(), parseSecretsKeys(`${KEY_B},${KEY_A}`)), { total: 3, reencrypted: 0, unchanged: 3, failed: 0, failures: [], keyId: ID_B });
    const check = await secretsCli(KEY_B, "check");
    assert.deepEqual([check.code, JSON.parse(check.stdout)], [0, { ok: true, keys: [ID_B], issues: [] }]);
    assert.deepEqual(await storedSecretsIssues(await db(), { ACREDITA_SECRETS_KEY: KEY_A }), [`ACREDITA_SECRETS_KEY: 3 stored endpoint secrets are encrypted under key ${ID_B}, which it does not list (it lists ${ID_A}); add that key`]);
    for (const secret of secrets) assert.equal(`${first.stdout}${first.stderr}`.includes(secret), false);
  });

  test("with the old key dropped, deliveries still verify under the new one", async () => {
    process.env.ACREDITA_SECRETS_KEY = KEY_B;
    forgetCachedEndpoints();
    const answer = await deliverLab(labIds[0], secrets[0], "evt_key_rot_1");
    // Verified (then an unknown order: 409), not refused.
    assert.equal(answer.status, 409);
  });

  test("an altered ciphertext: the start check and the delivery say so (500, the provider retries), reencrypt reports it and exits 1; never a value", async () => {
    const database = await db();
    const row = await database.endpointSecret.findFirstOrThrow({ where: { endpointId: labIds[1] } });
    const parts = row.ciphertext!.split(":");
    const sealed = Buffer.from(parts[4], "base64url");
    sealed[0] ^= 0x01;
    await database.endpointSecret.update({ where: { id: row.id }, data: { ciphertext: [...parts.slice(0, 4), sealed.toString("base64url")].join(":") } });
    forgetCachedEndpoints();

    assert.deepEqual(await storedSecretsIssues(database, { ACREDITA_SECRETS_KEY: KEY_B }), [`ACREDITA_SECRETS_KEY: its key ${ID_B} does not decrypt 1 stored endpoint secret of that id (altered rows, or another key that shares the id)`]);
    const refused = await deliverLab(labIds[1], secrets[1], "evt_key_rot_2");
    assert.deepEqual([refused.status, refused.body], [500, { outcome: "rejected", reason: "endpoint misconfigured; see the server log" }]);
    const log = readFileSync(process.env.LOG_FILE!, "utf8");
    assert.match(log, new RegExp(`signing secret secret-1 cannot be decrypted: a stored secret does not decrypt under key ${ID_B}`));
    // The other endpoints are unaffected.
    assert.equal((await deliverLab(labIds[0], secrets[0], "evt_key_rot_3")).status, 409);

    const report = await secretsCli(`${KEY_A},${KEY_B}`, "reencrypt");
    const parsed = JSON.parse(report.stdout);
    assert.deepEqual([report.code, parsed.total, parsed.reencrypted, parsed.failed, parsed.failures], [
      1,
      3,
      2,
      1,
      [{ endpointId: labIds[1], label: "secret-1", reason: `a stored secret does not decrypt under key ${ID_B}: it was altered, moved to another row, or that key is not the one it was encrypted with` }],
    ]);
    assert.ok(existsSync(process.env.LOG_FILE!));
    for (const secret of secrets) assert.equal(`${log}${report.stdout}`.includes(secret), false);
  });
});
