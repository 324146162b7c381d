import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { driverOf, type DriverDb } from "@/lib/db/driver";
import { createOrder, deliverLab, labEvent, readOrder } from "@/e2e/support/http";

// Inline deliveries that arrive together share one driver transaction (a savepoint each) and one
// commit; each keeps its own answer, and one delivery's refusal or duplicate touches no other.

/** Counts the driver transactions opened on the process's client while `work` runs. */
async function countingTransactions<T>(work: () => Promise<T>): Promise<{ result: T; transactions: number }> {
  const driver = driverOf(await db()) as { transaction: DriverDb["transaction"] };
  const original = driver.transaction;
  let transactions = 0;
  driver.transaction = ((inner) => {
    transactions++;
    return original.call(driver, inner);
  }) as DriverDb["transaction"];
  try {
    return { result: await work(), transactions };
  } finally {
    driver.transaction = original;
  }
}

before(async () => {
  for (let index = 0; index < 12; index++) assert.equal((await createOrder(`ord_group_${index}`, 1_000 + index, "ARS")).status, 201);
  assert.equal((await createOrder("ord_group_wrong", 5_000, "ARS")).status, 201);
});
after(closeDb);

describe("inline group apply", () => {
  test("twelve deliveries at once: each credited once and answered applied, in fewer transactions than deliveries", async () => {
    const bodies = Array.from({ length: 12 }, (_, index) => labEvent(`evt_group_${index}`, "payment.approved", `ord_group_${index}`, `pay_group_${index}`, 1_000 + index));
    const { result, transactions } = await countingTransactions(() => Promise.all(bodies.map((body) => deliverLab(body))));
    assert.deepEqual(
      result.map((answer) => [answer.status, answer.json.outcome]),
      bodies.map(() => [200, "applied"]),
    );
    assert.ok(transactions < 12, `12 deliveries took ${transactions} transactions`);
    for (let index = 0; index < 12; index++) {
      const order = await readOrder(`ord_group_${index}`);
      assert.deepEqual([order.status, order.credited, order.ledger.length], ["paid", 1_000 + index, 1]);
    }
  });

  test("in one group, a duplicate is answered duplicate and a wrong amount is dead-lettered; the others apply", async () => {
    assert.equal((await createOrder("ord_group_a", 700, "ARS")).status, 201);
    assert.equal((await createOrder("ord_group_b", 800, "ARS")).status, 201);
    const a = labEvent("evt_group_a", "payment.approved", "ord_group_a", "pay_group_a", 700);
    const wrong = labEvent("evt_group_wrong", "payment.approved", "ord_group_wrong", "pay_group_wrong", 4_999);
    const b = labEvent("evt_group_b", "payment.approved", "ord_group_b", "pay_group_b", 800);
    const answers = await Promise.all([deliverLab(a), deliverLab(wrong), deliverLab(a), deliverLab(b)]);
    assert.deepEqual(
      answers.map((answer) => [answer.status, answer.json.outcome]),
      [
        [200, "applied"],
        [422, "dead_lettered"],
        [200, "duplicate"],
        [200, "applied"],
      ],
    );
    assert.equal(answers[1].json.reason, "amount mismatch for order ord_group_wrong: payment 4999, order 5000 (ARS minor units)");
    assert.deepEqual([(await readOrder("ord_group_a")).credited, (await readOrder("ord_group_b")).credited, (await readOrder("ord_group_wrong")).credited], [700, 800, 0]);
    const database = await db();
    assert.equal(await database.webhookEvent.count({ where: { eventId: { in: ["evt_group_a", "evt_group_b", "evt_group_wrong"] } } }), 2, "the refused event is not stored");
    assert.equal(await database.deadLetter.count({ where: { eventId: "evt_group_wrong" } }), 1);
    assert.deepEqual(
      (await database.decision.findMany({ where: { eventId: "evt_group_a" }, orderBy: { at: "asc" }, select: { outcome: true } })).map((row) => row.outcome).sort(),
      ["applied", "duplicate"],
    );
  });
});
