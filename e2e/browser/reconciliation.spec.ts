// Reconciliation from the page: a deliberately broken settlement shows exactly its two mismatches with
// the totals per currency and links to the orders' timelines; a bad file is refused with its line number.
import { expect, test } from "@playwright/test";
import { allOrders } from "./support/api";
import { query } from "./support/database";
import { screenshot, storageStateOf } from "./support/roles";

test.use({ storageState: storageStateOf("merchant") });

const PROVIDER_STATUS: Record<string, string> = { created: "none", paid: "approved", refunded: "refunded" };
const text = (value: string) => value.replace(/\u00a0/g, " ");

test("a broken settlement shows its two mismatches, the over-credited total and links to the timelines", async ({ page, request }, testInfo) => {
  // The settlement the provider would send for the books as they are now (every order, whatever other
  // specs created), then two rows broken on purpose.
  const orders = await allOrders(request);
  const rows = orders.map((order) => {
    if (order.id === "ord_1041") return `${order.id},none,0,${order.currency}`; // paid here, never paid there: over-credited
    if (order.id === "ord_1044") return `${order.id},approved,${order.amount},${order.currency}`; // paid there, not here
    const status = PROVIDER_STATUS[order.status];
    return `${order.id},${status},${status === "approved" ? order.credited : order.amount},${order.currency}`;
  });
  const csv = ["order_id,provider_status,amount,currency", ...rows].join("\n") + "\n";
  expect(orders.find((order) => order.id === "ord_1041")?.status).toBe("paid");
  expect(orders.find((order) => order.id === "ord_1044")?.status).toBe("created");

  await page.goto("/reconciliation");
  await page.getByLabel(/Settlement CSV/).setInputFiles({ name: "broken-settlement.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByLabel("Label (optional)").fill("e2e broken settlement");
  await page.getByRole("button", { name: "Upload and run" }).click();
  await expect(page).toHaveURL(/\/reconciliation\/[a-z0-9]+$/);
  await expect(page.getByTestId("mismatch-count")).toHaveText("2");

  const mismatches = page.getByTestId("mismatches-table").locator("tbody tr");
  await expect(mismatches).toHaveCount(2);
  const first = mismatches.nth(0);
  await expect(first).toHaveAttribute("data-order-id", "ord_1041");
  await expect(first).toContainText("none");
  expect(text(await first.innerText())).toContain("ARS 25,000.00");
  const second = mismatches.nth(1);
  await expect(second).toHaveAttribute("data-order-id", "ord_1044");
  await expect(second).toContainText("approved");
  // Every currency in the settlement is listed (other specs add USD orders); only ARS was over-credited.
  const zero: Record<string, string> = { USD: "$0.00" };
  const currencies = [...new Set(orders.map((order) => order.currency))].sort();
  expect(text(await page.getByTestId("overcredited-totals").innerText())).toBe(currencies.map((currency) => (currency === "ARS" ? "ARS: ARS 25,000.00" : `${currency}: ${zero[currency]}`)).join("\n"));
  await screenshot(page, testInfo, "reconciliation-run");

  const runId = page.url().split("/").pop()!;
  expect(query<{ orderId: string; overcredited: number }>("SELECT orderId, overcredited FROM ReconciliationMismatch WHERE runId = ? ORDER BY orderId", runId)).toEqual([
    { orderId: "ord_1041", overcredited: 2_500_000 },
    { orderId: "ord_1044", overcredited: 0 },
  ]);

  await first.getByRole("link", { name: "ord_1041" }).click();
  await expect(page.getByRole("heading", { name: "Order ord_1041" })).toBeVisible();
  await expect(page.getByTestId("timeline").locator('tbody tr[data-event-id="evt_0001"]')).toHaveCount(2);

  await page.goto("/reconciliation");
  const runRow = page.locator(`tr[data-run-id="${runId}"]`);
  await expect(runRow).toContainText("e2e broken settlement");
  expect(text(await runRow.innerText())).toContain("ARS 25,000.00");
  await screenshot(page, testInfo, "reconciliation");
});

test("a settlement with a bad row is refused with its line number and stores no run", async ({ page }) => {
  const before = query<{ n: number }>("SELECT COUNT(*) AS n FROM ReconciliationRun")[0].n;
  await page.goto("/reconciliation");
  const csv = "order_id,provider_status,amount,currency\nord_1041,approved,2500000,ARS\nord_1042,approved,12.5,ARS\n";
  await page.getByLabel(/Settlement CSV/).setInputFiles({ name: "bad.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: "Upload and run" }).click();
  await expect(page.getByTestId("upload-result")).toContainText("line 3: amount: must be a whole number of minor units");
  await expect(page).toHaveURL(/\/reconciliation$/);
  expect(query<{ n: number }>("SELECT COUNT(*) AS n FROM ReconciliationRun")[0].n).toBe(before);
});
