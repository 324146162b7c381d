import { TEST_DB } from "@/e2e/support/test-env";
// A rolled-back transaction (a replay's preview, the books' rebuild) returns what its work computed and
// keeps nothing; on PostgreSQL its connection goes back to the pool instead of being thrown away (a
// preview a minute must not cost a new connection a minute), and so does one whose work refused.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import pg from "pg";
import { closeDb, db } from "@/lib/db/client";
import { driverOf, postgresDriver, rolledBack } from "@/lib/db/driver";
import { onPostgres, TEST_DATABASE } from "@/e2e/support/test-database";

after(closeDb);

describe(`a rolled-back driver transaction (${TEST_DATABASE})`, () => {
  test("returns what the work computed, with its own writes visible inside, and keeps none of them", async () => {
    const database = await db();
    await database.order.create({ data: { id: "ord_rb_1", amount: 1_000, currency: "ARS" } });
    const seen = await rolledBack(driverOf(database), async (session) => {
      await session.run(`UPDATE "Order" SET "status" = 'paid' WHERE "id" = ?`, ["ord_rb_1"]);
      return (await session.all<{ status: string }>(`SELECT "status" FROM "Order" WHERE "id" = ?`, ["ord_rb_1"]))[0].status;
    });
    assert.equal(seen, "paid");
    assert.equal((await database.order.findUniqueOrThrow({ where: { organizationId_id: { organizationId: "org_default", id: "ord_rb_1" } } })).status, "created");
  });

  test("an error of the work is thrown as it is, and its writes are rolled back too", async () => {
    const database = await db();
    await assert.rejects(
      rolledBack(driverOf(database), async (session) => {
        await session.run(`UPDATE "Order" SET "status" = 'refunded' WHERE "id" = ?`, ["ord_rb_1"]);
        throw new RangeError("refused by a rule");
      }),
      { name: "RangeError", message: "refused by a rule" },
    );
    assert.equal((await database.order.findUniqueOrThrow({ where: { organizationId_id: { organizationId: "org_default", id: "ord_rb_1" } } })).status, "created");
  });

  test("on PostgreSQL the connection is kept after a rollback, whether on purpose or after the work threw", { skip: !onPostgres }, async () => {
    const pool = new pg.Pool({ connectionString: TEST_DB.url, max: 1 });
    try {
      const driver = postgresDriver(pool);
      const backend = (session: { all: typeof driver.all }) => session.all<{ pid: number }>("SELECT pg_backend_pid() AS pid").then((rows) => rows[0].pid);
      const first = await rolledBack(driver, backend);
      assert.equal(await rolledBack(driver, backend), first);
      await assert.rejects(driver.transaction(async () => {
        throw new Error("a rule refused");
      }));
      assert.equal(await driver.transaction(backend), first);
      assert.equal(pool.totalCount, 1);
    } finally {
      await pool.end();
    }
  });
});
