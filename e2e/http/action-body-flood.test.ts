import { TEST_API_TOKEN, TEST_DB, TEST_LAB_SECRET } from "../support/test-env";
// slow-test: posts megabyte action bodies at the built server with its heap cap and waits for it to stay up
// A server action's body is decoded by Next.js before the action checks who is asking, so what that
// decode may cost is bounded, tried as an attacker would against the BUILT server with the heap cap
// `npm start` gives it (--max-old-space-size=256): six concurrent posts of ~9.5 MB (an object of
// 800,000 keys) to the dead-letter retry action's real id (fixed per build, in a public chunk), first
// with no session (refused by proxy.ts before the body is read), then as a signed-in merchant (refused
// by Next's body limit). Each time the server stays up and answers a signed webhook delivery. Before
// the bounds, the anonymous posts ended in "FATAL ERROR: Reached heap limit" in next-server.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { createUserWithPassword } from "@/lib/auth/users";
import { SERVER_PROCESS_FLAGS } from "@/lib/config/server-process-flags";
import { closeDb, db } from "@/lib/db/client";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { labEvent } from "../support/http";
import { ensureBuilt } from "../support/real-server";
import { startServer, type RunningServer } from "../support/server";

const ORIGIN = "http://action-flood.test.invalid";
const PASSWORD = "quiet-harbour-lantern-2026";
const ATTACKERS = 6;
const KEYS = 800_000;

let server: RunningServer;

/** `[{"k0":0,"k1":0,...}]`: the arguments of a fetch action as React encodes them, ~9.5 MB. */
const ATTACK_BODY = `[{${Array.from({ length: KEYS }, (_, i) => `"k${i}":0`).join(",")}}]`;

/** The id of the dead-letter retry action in the build under test (.next/server/server-reference-manifest.json). */
function retryActionId(): string {
  const manifest = JSON.parse(readFileSync(".next/server/server-reference-manifest.json", "utf8")) as { node: Record<string, { exportedName?: string }> };
  const id = Object.entries(manifest.node).find(([, entry]) => entry.exportedName === "retryDeadLettersAction")?.[0];
  assert.ok(id, "the build has the dead-letter retry action");
  return id;
}

/** Posts the attack body as a fetch action; resolves to the status, or 0 when the connection failed (the server died). */
async function attack(actionId: string, cookie?: string, path = "/dead-letters"): Promise<number> {
  try {
    const response = await fetch(`${server.url}${path}`, {
      method: "POST",
      body: ATTACK_BODY,
      headers: { "next-action": actionId, "content-type": "text/plain;charset=UTF-8", accept: "text/x-component", origin: server.url, connection: "close", ...(cookie ? { cookie } : {}) },
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

let delivered = 0;
/** A signed lab delivery (a new event each time) for an order made in before(); resolves to its status and how long it took (ms), status 0 when the connection failed. */
async function delivery(): Promise<{ status: number; ms: number }> {
  delivered += 1;
  const body = labEvent(`evt_flood_${delivered}`, "payment.approved", `ord_flood_${delivered}`, `pay_flood_${delivered}`, 1_000);
  const started = Date.now();
  try {
    const response = await fetch(`${server.url}/api/webhooks/lab`, { method: "POST", body, headers: { "content-type": "application/json", connection: "close", "Lab-Signature": signTimestamped(TEST_LAB_SECRET, Math.floor(Date.now() / 1000), body) } });
    await response.arrayBuffer();
    return { status: response.status, ms: Date.now() - started };
  } catch {
    return { status: 0, ms: Date.now() - started };
  }
}

before(async () => {
  ensureBuilt();
  assert.equal((await createUserWithPassword(await db(), { email: "merchant@flood.test", name: "Merchant", role: "merchant", password: PASSWORD })).kind, "created");
  server = await startServer({ DATABASE_URL: TEST_DB.url, AUTH_TRUSTED_ORIGINS: ORIGIN, NODE_OPTIONS: SERVER_PROCESS_FLAGS.join(" "), INBOX_WORKER_IN_PROCESS: "false", OUTBOX_DISPATCHER_ENABLED: "false" });
  for (let i = 1; i <= 40; i++) {
    const created = await fetch(`${server.url}/api/orders`, { method: "POST", body: JSON.stringify({ id: `ord_flood_${i}`, amount: 1_000, currency: "ARS" }), headers: { "content-type": "application/json", authorization: `Bearer ${TEST_API_TOKEN}` } });
    assert.equal(created.status, 201);
  }
});

after(async () => {
  await server?.stop("SIGKILL");
  await closeDb();
});

describe("server-action bodies cannot take the server down", () => {
  test("six concurrent anonymous 9.5 MB posts to a real action id are refused 403 before any decode; the server stays up and answers a signed delivery", async () => {
    const actionId = retryActionId();
    const idle = await delivery();
    assert.equal(idle.status, 200);
    const attacks = Promise.all(Array.from({ length: ATTACKERS }, () => attack(actionId)));
    const during = await delivery();
    const statuses = await attacks;
    const afterwards = await delivery();
    console.log(`anonymous action flood: delivery ${idle.ms} ms idle, ${during.ms} ms under the flood`);
    assert.deepEqual(statuses, Array(ATTACKERS).fill(403), server.output().slice(-2_000));
    assert.deepEqual([during.status, afterwards.status], [200, 200], server.output().slice(-2_000));
    assert.equal(server.process.exitCode, null, server.output().slice(-2_000));
    // A forged cookie (right name, no valid signature) is no session either.
    assert.equal(await attack(actionId, "better-auth.session_token=forged.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA%3D"), 403);
    // A path that only looks like a static asset's (`/_next/staticfoo`) goes through the proxy too (it was
    // skipped by the matcher, and Next.js relayed the anonymous body to the action's page).
    assert.equal(await attack(actionId, undefined, "/_next/staticfoo"), 403);
  });

  test("a signed-in merchant's six concurrent 9.5 MB posts are cut by Next's 128 KB action body limit; the server stays up and answers a signed delivery", async () => {
    const signIn = await fetch(`${server.url}/api/auth/sign-in/email`, { method: "POST", body: JSON.stringify({ email: "merchant@flood.test", password: PASSWORD }), headers: { "content-type": "application/json", origin: ORIGIN } });
    assert.equal(signIn.status, 200);
    const cookie = signIn.headers.getSetCookie().find((value) => value.includes("session_token="))!.split(";")[0];
    const actionId = retryActionId();
    const attacks = Promise.all(Array.from({ length: ATTACKERS }, () => attack(actionId, cookie)));
    const during = await delivery();
    const statuses = await attacks;
    const afterwards = await delivery();
    // Next.js answers a fetch action whose body is over the limit with its error (500), not a decode.
    assert.deepEqual(statuses, Array(ATTACKERS).fill(500), server.output().slice(-2_000));
    assert.equal(server.output().match(/Body exceeded 128kb limit/g)?.length, ATTACKERS, server.output().slice(-2_000));
    assert.deepEqual([during.status, afterwards.status], [200, 200], server.output().slice(-2_000));
    assert.equal(server.process.exitCode, null, server.output().slice(-2_000));
  });
});
