// The decision log shows the requests refused before a valid signature (counted per endpoint, reason and
// minute, not each a row): seven unsigned posts to /api/webhooks/lab add exactly seven to the lab row.
// The count is the endpoint's, not this spec's: it holds beside other specs because no other spec posts
// an unsigned delivery (every other refusal they cause has another reason: a wrong secret, a stale
// timestamp, an unknown endpoint, a GET).
import { expect, test } from "@playwright/test";
import { E2E } from "./support/e2e-env";
import { storageStateOf } from "./support/roles";

test.use({ storageState: storageStateOf("merchant") });

const bearer = { authorization: `Bearer ${E2E.apiToken}` };

test("decision log: the last 24 hours' refusals before a valid signature, per endpoint and reason", async ({ page, request }) => {
  const countedFor = async () => {
    const metrics = (await (await request.get("/api/metrics", { headers: bearer })).json()) as { rejectionTotals: { endpoint: string; reason: string; count: number }[] };
    return metrics.rejectionTotals.find((row) => row.endpoint === "lab" && row.reason === "signature_missing")?.count ?? 0;
  };
  const before = await countedFor();
  for (let index = 0; index < 7; index += 1) {
    const response = await request.post("/api/webhooks/lab", { data: JSON.stringify({ id: `evt_unsigned_${index}` }), headers: { "content-type": "application/json" } });
    expect(response.status()).toBe(401);
  }
  // Counts are written within REJECTION_FLUSH_INTERVAL_MS (1 s).
  await expect.poll(countedFor).toBe(before + 7);

  await page.goto("/decisions");
  const summary = page.getByTestId("rejection-summary");
  await expect(summary.locator("summary")).toContainText("Refused before a valid signature (last 24 hours):");
  await summary.locator("summary").click();
  const row = summary.locator("tbody tr", { has: page.locator('[data-rejection="signature_missing"]') }).filter({ has: page.locator("td", { hasText: /^lab$/ }) });
  await expect(row.locator("td")).toHaveText(["lab", "signature missing", "401", String(before + 7)]);
});
