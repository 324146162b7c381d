import { TEST_DB } from "@/e2e/support/test-env";
// A process about to exit (a CLI after its command, a worker after SIGTERM) closes its database with a
// bound: on PostgreSQL the pool's end waits for every checked-out connection, so one connection that is
// never returned would keep the process alive for ever.
import assert from "node:assert/strict";
import { test } from "node:test";
import { closeDbWithin, db } from "@/lib/db/client";
import { driverOf } from "@/lib/db/driver";
import { openPostgres } from "@/lib/db/open-postgres";
import { onPostgres } from "@/e2e/support/test-database";

const skip = onPostgres ? false : "PostgreSQL only (TEST_DATABASE=postgres): SQLite's close waits for nothing";
const OPTIONS = { poolSize: 2, poolTimeoutMs: 5_000, statementTimeoutMs: 5_000, transactionTimeoutMs: 60_000 };

/** Starts a driver transaction on `client` that holds its connection until the returned function is called. */
function holdConnection(client: Awaited<ReturnType<typeof db>>): { release: () => void; done: Promise<unknown> } {
  let release = () => {};
  const holding = new Promise<void>((resolve) => (release = resolve));
  const done = driverOf(client).transaction(async (session) => {
    await session.all("SELECT 1");
    await holding;
  });
  return { release: () => release(), done };
}

test("a connection never returned keeps the pool's close waiting; closeDbWithin gives up after its bound", { skip }, async () => {
  // The hang itself, on a client of its own: its close is still waiting after 1.5 s.
  const other = openPostgres(TEST_DB.url, OPTIONS);
  const heldOther = holdConnection(other);
  await other.$queryRawUnsafe("SELECT 1");
  const closing = other.$disconnect();
  const first = await Promise.race([closing.then(() => "closed"), new Promise((resolve) => setTimeout(() => resolve("still waiting"), 1_500))]);
  assert.equal(first, "still waiting");
  heldOther.release();
  await heldOther.done;
  await closing;

  // The process's client: closeDbWithin(500) returns after about half a second despite the held connection.
  const client = await db();
  const held = holdConnection(client);
  await client.$queryRawUnsafe("SELECT 1");
  const started = Date.now();
  await closeDbWithin(500);
  const elapsedMs = Date.now() - started;
  assert.ok(elapsedMs >= 450 && elapsedMs < 3_000, `closeDbWithin(500) returned after ${elapsedMs} ms`);
  held.release();
  await held.done;
});
