import { TEST_DB } from "@/e2e/support/test-env";
// Times are UTC in every row, whatever the process's time zone. The hot path writes and reads through
// the driver (lib/db/driver.ts), not Prisma, so a server whose TZ is not UTC (a host set to Buenos
// Aires) must still write the instant Prisma writes and read back the instant Prisma wrote. On
// PostgreSQL `pg` sends a Date in local time with an offset, which a TIMESTAMP column (Prisma's
// DateTime, without time zone) silently drops, and parses a TIMESTAMP as local time.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { driverOf } from "@/lib/db/driver";
import { sqlDate } from "@/lib/db/sql-values";
import { claimDueInboxEvents } from "@/lib/events/webhook-events";
import { TEST_DATABASE } from "@/e2e/support/test-database";

const T0 = new Date("2026-11-29T12:00:00.000Z");
const hours = (n: number) => new Date(T0.getTime() + n * 3_600_000);
const originalZone = process.env.TZ;

describe(`driver times are UTC in a process whose time zone is not (${TEST_DATABASE})`, () => {
  before(async () => {
    void TEST_DB;
    // UTC-3 all year (no daylight saving), so the expected shift is exactly three hours.
    process.env.TZ = "America/Argentina/Buenos_Aires";
    assert.equal(new Date(T0).getTimezoneOffset(), 180, "the process now runs three hours behind UTC");
    const database = await db();
    await database.webhookEvent.deleteMany({ where: { eventId: { startsWith: "evt_tz_" } } });
    await database.webhookEvent.create({
      data: {
        provider: "lab", endpoint: "lab", account: "default", livemode: true, eventId: "evt_tz_1", type: "payment.approved",
        bodyHash: "0".repeat(64), status: "received", payload: "{}", attempts: 0, nextAttemptAt: T0, dueAt: T0, receivedAt: T0,
      },
    });
  });
  after(async () => {
    const database = await db();
    await database.webhookEvent.deleteMany({ where: { eventId: { startsWith: "evt_tz_" } } });
    await closeDb();
    if (originalZone === undefined) delete process.env.TZ;
    else process.env.TZ = originalZone;
  });

  test("a time the driver reads is the instant Prisma wrote", async () => {
    const driver = driverOf(await db());
    const [row] = await driver.all<{ receivedAt: Date | string }>(`SELECT "receivedAt" FROM "WebhookEvent" WHERE "eventId" = ?`, ["evt_tz_1"]);
    assert.equal(sqlDate(row!.receivedAt)?.toISOString(), "2026-11-29T12:00:00.000Z");
  });

  test("a time the driver writes is the instant Prisma reads back", async () => {
    const database = await db();
    await driverOf(database).transaction((session) => session.run(`UPDATE "WebhookEvent" SET "nextAttemptAt" = ? WHERE "eventId" = ?`, [hours(1), "evt_tz_1"]));
    const row = await database.webhookEvent.findFirstOrThrow({ where: { eventId: "evt_tz_1" }, select: { nextAttemptAt: true } });
    assert.equal(row.nextAttemptAt?.toISOString(), "2026-11-29T13:00:00.000Z");
  });

  test("a time the driver compares with is the instant, not the local wall clock", async () => {
    const driver = driverOf(await db());
    const count = async (at: Date) =>
      Number((await driver.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "WebhookEvent" WHERE "eventId" = ? AND "receivedAt" <= ?`, ["evt_tz_1", at]))[0]!.n);
    assert.equal(await count(hours(1)), 1, "received an hour before");
    assert.equal(await count(hours(-1)), 0, "not yet received an hour earlier");
  });

  test("the inbox claim takes the event when it is due and returns its times as instants", async () => {
    const database = await db();
    await database.webhookEvent.update({ where: { provider_account_livemode_eventId: { provider: "lab", account: "default", livemode: true, eventId: "evt_tz_1" } }, data: { status: "received", nextAttemptAt: T0, dueAt: T0 } });
    assert.deepEqual(await claimDueInboxEvents(database, "worker-tz", hours(-1), 60_000, 64), [], "not due an hour before its time");
    const claimed = await claimDueInboxEvents(database, "worker-tz", hours(1), 60_000, 64);
    assert.deepEqual(claimed.map((event) => [event.eventId, event.receivedAt.toISOString(), event.leaseExpiresAt.toISOString()]), [["evt_tz_1", "2026-11-29T12:00:00.000Z", "2026-11-29T13:01:00.000Z"]]);
    const row = await database.webhookEvent.findFirstOrThrow({ where: { eventId: "evt_tz_1" }, select: { status: true, leaseExpiresAt: true, dueAt: true } });
    assert.deepEqual(row, { status: "processing", leaseExpiresAt: new Date("2026-11-29T13:01:00.000Z"), dueAt: new Date("2026-11-29T13:01:00.000Z") });
  });
});
