import { TEST_LAB_SECRET } from "@/e2e/support/test-env";
// A wrong signature over a hostile body is a 401 like any other, whatever the body holds: the
// signature diagnosis (which re-serialises JSON bodies to explain a mismatch) must not throw on a body
// nested deeper than JSON.stringify's stack allows, and the refusal is counted like the others.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import * as route from "@/app/api/webhooks/[endpoint]/route";
import { closeDb, db } from "@/lib/db/client";
import { flushRejectionCounts } from "@/lib/decisions/rejection-counter";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";

after(closeDb);

async function postLab(body: string, signature: string) {
  const request = new Request("http://127.0.0.1/api/webhooks/lab", { method: "POST", body, headers: { "content-type": "application/json", "Lab-Signature": signature } });
  const response = await route.POST(request, { params: Promise.resolve({ endpoint: "lab" }) });
  return { status: response.status, json: (await response.json()) as { outcome: string; reason: string } };
}

describe("deeply nested bodies with a wrong signature", () => {
  test("100,000 nested arrays signed with the wrong secret answer 401 signature mismatch, counted once; 64 levels still get their diagnosis", async () => {
    const now = Math.floor(Date.now() / 1000);
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const answer = await postLab(deep, signTimestamped("not_the_lab_secret_0001", now, deep));
    assert.deepEqual(answer, { status: 401, json: { outcome: "rejected", reason: "signature does not match any configured signing secret" } });

    // At the bound the re-serialisation checks still run: a pretty-printed copy of a compact body signed with the real secret is explained.
    const nested = JSON.stringify({ id: "evt_nested", deep: JSON.parse(`${"[".repeat(63)}1${"]".repeat(63)}`) });
    const pretty = JSON.stringify(JSON.parse(nested), null, 2);
    const explained = await postLab(pretty, signTimestamped(TEST_LAB_SECRET, now, nested));
    assert.equal(explained.status, 401);

    await flushRejectionCounts();
    const database = await db();
    const counted = await database.rejectionCount.findMany({ select: { endpoint: true, reason: true, httpStatus: true, count: true } });
    assert.deepEqual(counted, [{ endpoint: "lab", reason: "signature_mismatch", httpStatus: 401, count: 2 }]);
    const decisions = await database.decision.findMany({ orderBy: { at: "asc" }, select: { endpoint: true, verified: true, httpStatus: true, diagnosis: true } });
    assert.equal(decisions.length, 2);
    assert.deepEqual(decisions[0], { endpoint: "lab", verified: false, httpStatus: 401, diagnosis: null });
    assert.match(decisions[1].diagnosis ?? "", /^signature matches LAB_WEBHOOK_SECRET\[0\] over compact JSON/);
  });
});
