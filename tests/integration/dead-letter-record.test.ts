// One dead letter per event and body, however many failures arrive at once: the upsert is one statement.
import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { ApplyFailure } from "@/lib/core/failures";
import { closeDb, db } from "@/lib/db/client";
import { recordDeadLetter } from "@/lib/dead-letters/dead-letters";
import { because } from "@/lib/reasons/reason-codes";

after(closeDb);

test("eight concurrent first failures of one event and body make one open dead letter with 8 attempts; a resolved one reopens", async () => {
  const database = await db();
  const failure = new ApplyFailure("unknown_order", because("unknown_order", { orderId: "ord_dl_race" }), "ord_dl_race");
  const input = { organizationId: "org_default", key: { provider: "lab", account: "lab", livemode: true, eventId: "evt_dl_race" }, endpoint: "lab", eventType: "payment.approved", bodyHash: "h1", secretLabel: "LAB_WEBHOOK_SECRET[0]", payload: "{}", orderId: "ord_dl_race", failure };
  const ids = await Promise.all(Array.from({ length: 8 }, () => recordDeadLetter(database, input)));
  assert.equal(new Set(ids).size, 1);
  const rows = await database.deadLetter.findMany({ where: { eventId: "evt_dl_race" } });
  assert.deepEqual(
    rows.map((row) => [row.id, row.status, row.attempts, row.category, row.reasonCode, row.reasonParams, row.secretLabel]),
    [[ids[0], "open", 8, "unknown_order", "unknown_order", '{"orderId":"ord_dl_race"}', "LAB_WEBHOOK_SECRET[0]"]],
  );

  await database.deadLetter.update({ where: { id: ids[0] }, data: { status: "resolved", resolution: "by hand", resolvedBy: "ops", resolvedAt: new Date() } });
  assert.equal(await recordDeadLetter(database, input), ids[0]);
  const reopened = await database.deadLetter.findUniqueOrThrow({ where: { id: ids[0] } });
  assert.deepEqual([reopened.status, reopened.attempts, reopened.resolution, reopened.resolvedBy], ["open", 9, null, null]);

  // Another body under the same event id is another dead letter (a conflict is compared by a person).
  const other = await recordDeadLetter(database, { ...input, bodyHash: "h2" });
  assert.notEqual(other, ids[0]);
  assert.equal(await database.deadLetter.count({ where: { eventId: "evt_dl_race" } }), 2);
});
