// Hardening, against the production build over real sockets: a body above the cap is refused
// with 413 while the client is still sending (chunked, no length) and before the body is sent at all
// (Content-Length above the cap); the server keeps serving and each refusal is one decision row.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { startServer, type RunningServer } from "../support/server";
import { sqlReader } from "../support/sql-reader";
import { postStreaming as postStreamingTo } from "../support/streaming-post";
import { newTestDatabase } from "../support/test-database";

const SECRET = "limits_server_secret_01";
const TOKEN = "limits-server-token-0123456789abcdef-01";
const testDatabase = newTestDatabase("limits");
const databaseUrl = testDatabase.url;
let server: RunningServer;

before(async () => {
  server = await startServer({ DATABASE_URL: databaseUrl, LAB_WEBHOOK_SECRET: SECRET, API_TOKEN: TOKEN });
});
after(() => server.stop());

/** Posts to the lab endpoint with {@link postStreamingTo}. */
function postStreaming(headers: Record<string, string>, chunk: Buffer, chunks: number) {
  return postStreamingTo(`${server.url}/api/webhooks/lab`, headers, chunk, chunks);
}

function decisionsWithStatus(status: number): { reason: string; verified: number; eventId: string | null }[] {
  const database = sqlReader(testDatabase);
  try {
    // verified: SQLite stores 0/1, PostgreSQL a boolean.
    return database
      .all<{ reason: string; verified: number | boolean; eventId: string | null }>("SELECT reason, verified, eventId FROM Decision WHERE httpStatus = ? ORDER BY at, id", status)
      .map((row) => ({ ...row, verified: Number(row.verified) }));
  } finally {
    database.close();
  }
}

test("a chunked body without a length is cut off with 413 once it passes 1 MiB, long before the client has sent its 32 MiB", async () => {
  const answer = await postStreaming({ "Lab-Signature": signTimestamped(SECRET, Math.floor(Date.now() / 1000), "x") }, Buffer.alloc(65_536, 0x20), 512);
  assert.deepEqual([answer.status, answer.json], [413, { outcome: "rejected", reason: "body too large: more than 1048576 bytes received, limit 1048576 bytes" }]);
  assert.ok(answer.bytesWritten < 512 * 65_536, `the answer came after all ${answer.bytesWritten} bytes were written`);
});

test("a Content-Length above the cap is answered 413 after 10 bytes of an announced 5,000,000", async () => {
  const answer = await postStreaming({ "content-length": "5000000" }, Buffer.from('{"id":"x",'), 1);
  assert.deepEqual([answer.status, answer.json], [413, { outcome: "rejected", reason: "body too large: Content-Length 5000000, limit 1048576 bytes" }]);
  assert.equal(answer.bytesWritten, 10);
});

test("after both refusals the server still serves, and each left one unverified decision row and nothing else", async () => {
  const health = await fetch(`${server.url}/api/health`);
  assert.deepEqual([health.status, await health.json()], [200, { ok: true, database: "up" }]);
  const live = await fetch(`${server.url}/api/health/live`);
  assert.deepEqual([live.status, await live.json()], [200, { ok: true, mode: "production" }]);
  const wrongMethod = await fetch(`${server.url}/api/webhooks/lab`);
  assert.deepEqual([wrongMethod.status, wrongMethod.headers.get("allow")], [405, "POST"]);
  assert.deepEqual(decisionsWithStatus(413), [
    { reason: "body too large: more than 1048576 bytes received, limit 1048576 bytes", verified: 0, eventId: null },
    { reason: "body too large: Content-Length 5000000, limit 1048576 bytes", verified: 0, eventId: null },
  ]);
  assert.equal(decisionsWithStatus(405).length, 1);
  const database = sqlReader(testDatabase);
  const events = database.count("SELECT COUNT(*) AS n FROM WebhookEvent");
  database.close();
  assert.equal(events, 0);
});
