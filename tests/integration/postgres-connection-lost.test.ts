// A PostgreSQL connection lost in the middle of a transaction (a database restart, a failover, an
// idle-connection killer), while the process holds it between two statements: the transaction fails
// with a connection error the caller can retry, the process does not crash (pg emits the error on the
// checked-out client, and an 'error' event nobody listens to ends a Node process), the connection is
// not leaked (a pool of ONE serves the next transaction on a new connection), and the client closes.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import pg from "pg";
import { driverOf } from "@/lib/db/driver";
import { openPostgres } from "@/lib/db/open-postgres";
import { TEST_DB } from "@/e2e/support/test-env";
import { onPostgres } from "@/e2e/support/test-database";

const skip = onPostgres ? false : "PostgreSQL only (TEST_DATABASE=postgres): SQLite has no connections to lose";

/** Terminates one backend from a connection of its own; resolves once PostgreSQL has signalled it. */
async function terminate(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: TEST_DB.url });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ done: boolean }>("SELECT pg_terminate_backend($1) AS done", [pid]);
    assert.equal(rows[0].done, true);
  } finally {
    await admin.end();
  }
}

/** Resolves once `pid` is gone from pg_stat_activity and this process has had time to read the socket's end. */
async function gone(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: TEST_DB.url });
  await admin.connect();
  try {
    for (let tries = 0; tries < 200; tries++) {
      const { rows } = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid]);
      if (rows.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  } finally {
    await admin.end();
  }
  // The termination notice and the socket's close reach the client as events, not as a query's answer.
  await new Promise((resolve) => setTimeout(resolve, 200));
}

/** A client whose pool holds ONE connection: a leaked connection makes its next query wait out poolTimeoutMs and fail. */
function clientOfOne() {
  return openPostgres(TEST_DB.url, { poolSize: 1, poolTimeoutMs: 3_000, statementTimeoutMs: 10_000, transactionTimeoutMs: 30_000 });
}

/** Closes `client`, or fails when the close still waits after 3 s (the pool's end waits for every checked-out connection). */
async function closes(client: ReturnType<typeof clientOfOne>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => (timer = setTimeout(() => resolve("still waiting after 3 s"), 3_000)));
  try {
    assert.equal(await Promise.race([client.$disconnect().then(() => "closed"), late]), "closed");
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `work` and returns the messages of the uncaught exceptions meanwhile (where an 'error' event nobody hears ends up). */
async function uncaughtDuring(work: () => Promise<void>): Promise<string[]> {
  const uncaught: string[] = [];
  const onUncaught = (error: Error) => uncaught.push(error.message);
  process.on("uncaughtException", onUncaught);
  try {
    await work();
  } finally {
    process.off("uncaughtException", onUncaught);
  }
  return uncaught;
}

/** Ends the backend `pid` from another connection and waits until this process has seen it go. */
async function loseConnection(pid: number): Promise<void> {
  await terminate(pid);
  await gone(pid);
}

describe("PostgreSQL connection lost inside a transaction", { skip }, () => {
  test("the driver's transaction: its connection terminated between two statements fails that transaction (no crash, no connection leaked); the next one runs on a new connection", async () => {
    const client = clientOfOne();
    // Prisma's close ends the pool only once Prisma has connected (every process queries through it first).
    await client.$queryRawUnsafe("SELECT 1");
    const driver = driverOf(client);
    let firstPid = 0;
    const uncaught = await uncaughtDuring(() =>
      assert.rejects(
        driver.transaction(async (session) => {
          firstPid = (await session.all<{ pid: number }>("SELECT pg_backend_pid() AS pid"))[0].pid;
          await loseConnection(firstPid);
          await session.all("SELECT 1 AS one");
        }),
        (error: Error) => /terminat|not queryable|Connection/i.test(error.message),
      ),
    );
    assert.deepEqual(uncaught, []);
    const next = await driver.transaction(async (session) => (await session.all<{ pid: number }>("SELECT pg_backend_pid() AS pid"))[0].pid);
    assert.notEqual(next, firstPid);
    await closes(client);
  });

  test("Prisma's interactive transaction: the same loss fails it (no crash, no connection leaked); the next query runs on a new connection", async () => {
    const client = clientOfOne();
    let firstPid = 0;
    const uncaught = await uncaughtDuring(() =>
      assert.rejects(
        client.$transaction(async (tx) => {
          firstPid = (await tx.$queryRawUnsafe<{ pid: number }[]>("SELECT pg_backend_pid() AS pid"))[0].pid;
          await loseConnection(firstPid);
          await tx.$queryRawUnsafe("SELECT 1 AS one");
        }),
      ),
    );
    assert.deepEqual(uncaught, []);
    const next = (await client.$queryRawUnsafe<{ pid: number }[]>("SELECT pg_backend_pid() AS pid"))[0].pid;
    assert.notEqual(next, firstPid);
    await closes(client);
  });
});
