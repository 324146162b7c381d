// Table state lives in the URL: filters, sorting, page size and page change the URL, and a reload (or a
// shared link) shows the same rows.
import { expect, test } from "@playwright/test";
import { createOrder, deliverLab } from "./support/api";
import { E2E } from "./support/e2e-env";
import { untilHydrated } from "./support/hydration";
import { screenshot, storageStateOf } from "./support/roles";

test.use({ storageState: storageStateOf("merchant") });

const ids = Array.from({ length: 30 }, (_, index) => `e2e_page_${String(index).padStart(2, "0")}`);

test.beforeAll(async ({ request }) => {
  for (const [index, id] of ids.entries()) {
    await createOrder(request, id, 1_000 * (index + 1), index % 2 === 0 ? "USD" : "ARS");
    if (index % 3 === 0) {
      const answer = await deliverLab(request, { id: `evt_${id}`, type: "payment.approved", orderId: id, paymentId: `pay_${id}`, amount: 1_000 * (index + 1), currency: index % 2 === 0 ? "USD" : "ARS" });
      expect(answer.outcome).toBe("applied");
    }
  }
  // The decision log's own rows: e2e_page_00's approval again (a duplicate), then two refusals before a
  // valid signature, a wrong secret and (newest) a replay signed 3 days (259,200 s) before it is sent.
  expect((await deliverLab(request, { id: "evt_e2e_page_00", type: "payment.approved", orderId: "e2e_page_00", paymentId: "pay_e2e_page_00", amount: 1_000, currency: "USD" })).outcome).toBe("duplicate");
  const refused = { type: "payment.approved", orderId: "e2e_page_01", paymentId: "pay_e2e_page_refused", amount: 2_000 } as const;
  expect((await deliverLab(request, { ...refused, id: "evt_e2e_page_forged" }, "not-the-lab-secret")).status).toBe(401);
  expect((await deliverLab(request, { ...refused, id: "evt_e2e_page_replay" }, E2E.labSecret, Math.floor(Date.now() / 1000) - 259_200)).status).toBe(401);
});

const orderIds = (page: import("@playwright/test").Page) => page.getByTestId("orders-table").locator("tbody tr").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-order-id")));

test("orders: filters, sorting, page size and page are in the URL and survive a reload", async ({ page }) => {
  await page.goto("/orders");
  await page.getByLabel("Search orders").fill("e2e_page_");
  await page.getByLabel("Currency").selectOption("USD");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/[?&]q=e2e_page_(&|$)/);
  await expect(page).toHaveURL(/[?&]currency=USD(&|$)/);
  await expect(page.getByTestId("orders-table").locator("tbody tr")).toHaveCount(15);

  // Sort by amount ascending (the header cycles; click until the URL says asc).
  await untilHydrated(page.getByRole("button", { name: "Amount" }));
  await page.getByRole("button", { name: "Amount" }).click();
  await expect(page).toHaveURL(/[?&]sort=amount(&|$)/);
  if (!/dir=asc/.test(page.url())) await page.getByRole("button", { name: "Amount" }).click();
  await expect(page).toHaveURL(/[?&]dir=asc(&|$)/);
  await expect(page.locator('th[aria-sort="ascending"]')).toHaveText(/Amount/);
  await expect.poll(async () => (await orderIds(page)).slice(0, 3)).toEqual(["e2e_page_00", "e2e_page_02", "e2e_page_04"]);

  await page.getByLabel("Rows per page").selectOption("10");
  await expect(page).toHaveURL(/[?&]pageSize=10(&|$)/);
  await expect(page.getByTestId("page-indicator")).toHaveText("Page 1 of 2");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page).toHaveURL(/[?&]page=2(&|$)/);
  await expect(page.getByTestId("page-indicator")).toHaveText("Page 2 of 2");
  const secondPage = await orderIds(page);
  expect(secondPage).toEqual(["e2e_page_20", "e2e_page_22", "e2e_page_24", "e2e_page_26", "e2e_page_28"]);

  const url = page.url();
  await page.reload();
  expect(page.url()).toBe(url);
  await expect(page.getByTestId("page-indicator")).toHaveText("Page 2 of 2");
  expect(await orderIds(page)).toEqual(secondPage);
  await expect(page.getByLabel("Search orders")).toHaveValue("e2e_page_");
  await expect(page.getByLabel("Currency")).toHaveValue("USD");

  // Status filter on top: paid USD orders are indexes 0, 6, 12, 18, 24.
  await page.getByLabel("Status").selectOption("paid");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/[?&]status=paid(&|$)/);
  await expect(page).not.toHaveURL(/[?&]page=/);
  // The URL changes before the filtered rows replace the old ones (they stream in after it): read them until they have.
  await expect.poll(() => orderIds(page)).toEqual(["e2e_page_00", "e2e_page_06", "e2e_page_12", "e2e_page_18", "e2e_page_24"]);

  // A date range that excludes today: nothing matches, said plainly.
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  await page.getByLabel("Updated from (UTC)").fill(tomorrow);
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(new RegExp(`[?&]from=${tomorrow}(&|$)`));
  await expect(page.getByText("No results match these filters.")).toBeVisible();
  const today = new Date().toISOString().slice(0, 10);
  await page.goto(`/orders?q=e2e_page_&currency=USD&status=paid&from=${today}&to=${today}`);
  await expect(page.getByTestId("orders-table").locator("tbody tr")).toHaveCount(5);
});

test("decision log: filters are in the URL, survive a reload, and page through", async ({ page }, testInfo) => {
  await page.goto("/decisions");
  await page.getByLabel("Outcome", { exact: true }).selectOption("rejected");
  await page.getByLabel("HTTP status").fill("401");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/[?&]outcome=rejected(&|$)/);
  await expect(page).toHaveURL(/[?&]status=401(&|$)/);
  const rows = page.getByTestId("decisions-table").locator("tbody tr");
  // Other specs' refusals are 401s of the same endpoint in the same database: this spec asserts its own two.
  const ours = page.locator('[data-testid="decisions-table"] tbody tr[data-event-id^="evt_e2e_page_"]');
  await expect(ours).toHaveCount(2);
  expect(await ours.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-event-id")))).toEqual(["evt_e2e_page_replay", "evt_e2e_page_forged"]);
  // The receiver may read its clock a second after the signature's timestamp.
  await expect(ours.nth(0)).toContainText(/timestamp outside tolerance: 259,20[01] s \(max 300 s\)/);
  await expect(ours.nth(1)).toContainText("signature does not match any configured signing secret");
  await expect(ours.nth(1)).toContainText("unverified");
  await page.reload();
  await expect(ours).toHaveCount(2);
  await expect(page.getByLabel("Outcome", { exact: true })).toHaveValue("rejected");
  await expect(page.getByLabel("HTTP status")).toHaveValue("401");

  // One event: its approval and the same approval again; the chart counts the rows the filters select.
  await page.goto("/decisions?eventId=evt_e2e_page_00");
  await expect(rows).toHaveCount(2);
  expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-outcome")))).toEqual(["duplicate", "applied"]);
  await expect(page.getByTestId("decisions-chart")).toContainText("2 decisions in the last 24 hours");

  await page.goto("/decisions?orderId=e2e_page_03");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute("data-event-id", "evt_e2e_page_03");

  // Paging: this spec alone wrote 13 decisions, so there is a second page of 10 whatever else ran.
  await page.goto("/decisions?pageSize=10");
  await expect(rows).toHaveCount(10);
  await screenshot(page, testInfo, "decisions");
  await page.getByRole("link", { name: "Next" }).click();
  await expect(page).toHaveURL(/[?&]page=2(&|$)/);
  await expect(page).toHaveURL(/[?&]pageSize=10(&|$)/);
  await expect(page.getByText(/Page 2 of \d+/)).toBeVisible();
  await page.reload();
  await expect(page.getByText(/Page 2 of \d+/)).toBeVisible();
});
