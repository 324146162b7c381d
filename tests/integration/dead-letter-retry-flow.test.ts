import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Actor } from "@/lib/auth/roles";
import { closeDb, db } from "@/lib/db/client";
import { listDeadLettersPage } from "@/lib/dead-letters/list-dead-letters";
import { retryDeadLetterAs, retryDeadLettersAs } from "@/lib/triage/manage-dead-letters";
import { createOrder, deliverLab, labEvent } from "@/e2e/support/http";
const DEFAULT_ORG = "org_default";

const support: Actor = { id: "u_support", email: "support@shop.test", name: "S", role: "support", organizationId: "org_default" };

async function letterOf(eventId: string) {
  return (await db()).deadLetter.findFirstOrThrow({ where: { eventId } });
}

async function openEventIds(): Promise<string[]> {
  return (await listDeadLettersPage(await db(), DEFAULT_ORG, { page: 1, pageSize: 25, status: "open" })).data.map((row) => row.eventId);
}

before(async () => {
  assert.equal((await createOrder("rf_1", 100_000)).status, 201);
  assert.equal((await createOrder("rf_2", 5_000)).status, 201);
  // Oldest first: an unknown order (retryable), then an amount that is not the order's (review first).
  assert.equal((await deliverLab(labEvent("evt_rf_unknown", "payment.approved", "rf_missing", "pay_rf_0", 100))).status, 409);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal((await deliverLab(labEvent("evt_rf_amount", "payment.approved", "rf_1", "pay_rf_1", 90_000))).status, 422);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal((await deliverLab(labEvent("evt_rf_early", "payment.refunded", "rf_2", "pay_rf_2", 5_000))).status, 409);
});
after(closeDb);

describe("dashboard retry flow", () => {
  test("the open tab lists by first failure, newest first, and marks the amount mismatch review-first", async () => {
    const page = await listDeadLettersPage(await db(), DEFAULT_ORG, { page: 1, pageSize: 25, status: "open" });
    assert.deepEqual(
      page.data.map((row) => [row.eventId, row.orderId, row.category, row.reviewFirst]),
      [
        ["evt_rf_early", "rf_2", "transition", false],
        ["evt_rf_amount", "rf_1", "amount_mismatch", true],
        ["evt_rf_unknown", "rf_missing", "unknown_order", false],
      ],
    );
  });

  test("a review-first dead letter is not retried without confirmation: attempts and audit unchanged", async () => {
    const letter = await letterOf("evt_rf_amount");
    const result = await retryDeadLetterAs(await db(), support, letter.id);
    assert.deepEqual(result, {
      id: letter.id,
      eventId: "evt_rf_amount",
      orderId: "rf_1",
      category: "amount_mismatch",
      outcome: "review_first",
      reason: "amount_mismatch: a retry meets the same check and fails again; review the order first",
      reasonRef: { code: "review_first", params: { category: "amount_mismatch" } },
    });
    assert.equal((await letterOf("evt_rf_amount")).attempts, 1);
    assert.equal(await (await db()).auditEntry.count({ where: { targetId: letter.id } }), 0);
  });

  test("confirmed, it runs and fails again (attempt 2); the rows keep their order", async () => {
    const before = await openEventIds();
    const letter = await letterOf("evt_rf_amount");
    const result = await retryDeadLetterAs(await db(), support, letter.id, { confirmReviewFirst: true });
    assert.deepEqual([result.eventId, result.orderId, result.outcome, result.attempts], ["evt_rf_amount", "rf_1", "dead_lettered", 2]);
    assert.equal((await letterOf("evt_rf_amount")).attempts, 2);
    // Its last failure is now the newest, and the order of the tab is the same.
    assert.deepEqual(await openEventIds(), before);
  });

  test("a bulk retry names every result by event and order, in the order asked, and skips the review-first one", async () => {
    const ids = await Promise.all(["evt_rf_unknown", "evt_rf_amount", "evt_rf_early"].map(async (eventId) => (await letterOf(eventId)).id));
    const results = await retryDeadLettersAs(await db(), support, ids);
    assert.deepEqual(
      results.map((result) => [result.eventId, result.orderId, result.outcome, result.attempts ?? null]),
      [
        ["evt_rf_unknown", "rf_missing", "dead_lettered", 2],
        ["evt_rf_amount", "rf_1", "review_first", null],
        ["evt_rf_early", "rf_2", "dead_lettered", 2],
      ],
    );
    assert.equal((await letterOf("evt_rf_amount")).attempts, 2);
    assert.deepEqual(await openEventIds(), ["evt_rf_early", "evt_rf_amount", "evt_rf_unknown"]);
  });

  test("an unknown id is named as not found, with no event or order", async () => {
    assert.deepEqual(await retryDeadLetterAs(await db(), support, "dl_nope"), { id: "dl_nope", eventId: null, orderId: null, category: null, outcome: "not_found", reason: "no dead letter dl_nope", reasonRef: { code: "retry_not_found", params: { id: "dl_nope" } }, attempts: undefined });
  });
});
