// Reconciliation from the page: the upload goes to POST /api/reconciliations (a 12 MB Stripe report,
// far over the 128 KB server-action body limit), the run's page shows the progress bar until the worker is
// done, then the totals per currency formatted for the locale and the mismatches (filter by code, sort,
// pages, CSV export), each linked to the order's timeline. The lab's order-level file still works; a
// file over the upload limit is refused naming it; a bad file is refused with its line.
import { expect, test } from "@playwright/test";
import { stripeReport, type ReportLine } from "../support/stripe-report-csv";
import { allOrders } from "./support/api";
import { query } from "./support/database";
import { screenshot, storageStateOf } from "./support/roles";

test.use({ storageState: storageStateOf("merchant") });

const PROVIDER_STATUS: Record<string, string> = { created: "none", paid: "approved", refunded: "refunded" };
const text = (value: string) => value.replace(/[\u00a0\u202f]/g, " ");
const LINES = 60_000;

test("a 12 MB Stripe report: progress bar until done, totals per currency, mismatches filtered, sorted, paged, exported, linked", async ({ page }, testInfo) => {
  test.setTimeout(240_000);
  const lines: ReportLine[] = Array.from({ length: LINES }, (_, i) => ({ txn: `txn_b${i}`, at: "2026-11-29 12:00:00", currency: i % 3 === 0 ? "jpy" : "usd", gross: i % 3 === 0 ? "500" : "10.00", category: "charge", paymentIntent: `pi_b${String(i).padStart(5, "0")}`, orderId: i === 1 ? "ord_1041" : undefined }));
  const csv = Buffer.from(stripeReport(lines));
  expect(csv.length).toBeGreaterThan(10 * 1024 * 1024);

  await page.goto("/reconciliation");
  await page.getByLabel(/Settlement report/).setInputFiles({ name: "stripe-balance.csv", mimeType: "text/csv", buffer: csv });
  await page.getByLabel("Label (optional)").fill("e2e stripe report");
  await page.getByRole("button", { name: "Upload and run" }).click();
  await expect(page).toHaveURL(/\/reconciliation\/[a-z0-9]+$/, { timeout: 60_000 });
  const progress = page.getByTestId("run-progress");
  // The bar is there while the run is queued or running, and the page refreshes itself when it ends.
  await expect(progress).toHaveAttribute("data-status", /queued|running/);
  await expect(page.getByTestId("run-progress-bar")).toBeVisible();
  await screenshot(page, testInfo, "reconciliation-progress");
  await expect(progress).toHaveAttribute("data-status", "done", { timeout: 200_000 });
  await expect(page.getByTestId("mismatch-count")).toHaveText(String(LINES), { timeout: 20_000 });
  await expect(page.getByTestId("run-scope")).toHaveText("stripe:acct_acredita_demo:live");

  // Totals per currency, formatted by Intl (never raw minor units): 40,000 USD charges of $10.00, 20,000 JPY of ¥500.
  const usd = page.getByTestId("totals-table").locator('tr[data-currency="USD"]');
  await expect(usd.locator('td[data-column="gross"]')).toHaveText("$400,000.00");
  await expect(usd.locator('td[data-column="underCredited"]')).toHaveText("$400,000.00");
  // Credits before refunds, unlike an order's "credited, net of refunds".
  await expect(page.getByTestId("totals-table").getByRole("columnheader", { name: "Credits (gross)" })).toBeVisible();
  await expect(page.getByTestId("totals-table").locator('tr[data-currency="JPY"] td[data-column="gross"]')).toHaveText("¥10,000,000");

  const rows = page.getByTestId("mismatches-table").locator("tbody tr");
  await expect(rows).toHaveCount(25);
  await expect(page.getByText(`${LINES.toLocaleString("en-US")} results`)).toBeVisible();
  await expect(rows.nth(0)).toHaveAttribute("data-payment-id", "pi_b00000");
  await expect(rows.nth(1)).toHaveAttribute("data-order-id", "ord_1041");
  await screenshot(page, testInfo, "reconciliation-run");

  // Sort by payment, descending (server side): the last payment id comes first.
  await page.getByRole("link", { name: "Sort by Payment" }).click();
  await expect(page).toHaveURL(/sort=paymentId&direction=asc|direction=asc&sort=paymentId|sort=paymentId$/);
  await page.getByRole("link", { name: "Sort by Payment" }).click();
  await expect(page).toHaveURL(/direction=desc/);
  await expect(rows.nth(0)).toHaveAttribute("data-payment-id", `pi_b${LINES - 1}`);
  // Filter by code: no duplicates in this report.
  await page.getByTestId("code-filter").getByRole("link", { name: "duplicate row" }).click();
  await expect(page.getByText("No mismatches so far.")).toBeVisible();
  await page.getByTestId("code-filter").getByRole("link", { name: "missing credit" }).click();
  await expect(rows).toHaveCount(25);
  await page.getByRole("link", { name: "Next" }).click();
  await expect(page).toHaveURL(/page=2/);

  const runId = new URL(page.url()).pathname.split("/").pop()!;
  const exported = await page.request.get(`/api/reconciliations/${runId}/mismatches?code=missing_credit`);
  expect(exported.status()).toBe(200);
  const exportedLines = (await exported.text()).trim().split("\n");
  expect(exportedLines).toHaveLength(LINES + 1);
  expect(exportedLines[0]).toBe("code,payment_id,order_id,currency,settled_minor,booked_minor,line,lines,next_action");
  await expect(page.getByTestId("export-csv")).toHaveAttribute("href", `/api/reconciliations/${runId}/mismatches?code=missing_credit`);

  // Each mismatch with an order links to its timeline.
  await page.goto(`/reconciliation/${runId}`);
  await rows.nth(1).getByRole("link", { name: "ord_1041" }).click();
  await expect(page.getByRole("heading", { name: "Order ord_1041" })).toBeVisible();

  await page.goto("/reconciliation");
  const runRow = page.locator(`tr[data-run-id="${runId}"]`);
  await expect(runRow).toContainText("e2e stripe report");
  await expect(runRow).toContainText("stripe:acct_acredita_demo:live");
  await expect(runRow).toContainText("done");
  await expect(runRow).toContainText("merchant@");
  await screenshot(page, testInfo, "reconciliation");
});

test.describe("in es-AR", () => {
  test.use({ locale: "es-AR" });
  test("the run page's totals and labels are in Spanish, money formatted for es-AR", async ({ page }) => {
    const runId = query<{ id: string }>("SELECT id FROM ReconciliationRun WHERE source = ? AND status = 'done'", "e2e stripe report")[0].id;
    await page.goto(`/reconciliation/${runId}`);
    await expect(page.getByRole("heading", { name: "Totales por moneda" })).toBeVisible();
    const usd = text(await page.getByTestId("totals-table").locator('tr[data-currency="USD"] td[data-column="gross"]').innerText());
    expect(usd).toBe("US$ 400.000,00");
    await expect(page.getByTestId("totals-table").getByRole("columnheader", { name: "Créditos (brutos)" })).toBeVisible();
    await expect(page.getByTestId("code-filter").getByRole("link", { name: "falta la acreditación" })).toBeVisible();
    await expect(page.getByTestId("run-progress")).toContainText("terminada");
  });
});

test("the lab's order-level file: exactly its two planted mismatches, linked to the timelines", async ({ page, request }) => {
  // The lab's file reconciles the lab's scope: its five orders and every order the lab credited in this
  // shared database (other specs pay orders through the lab), each as it stands, but for the two planted rows.
  const orders = (await allOrders(request)).filter((order) => /^ord_104[1-5]$/.test(order.id) || order.ledger.some((entry) => entry.provider === "lab"));
  const rows = orders.map((order) => {
    if (order.id === "ord_1041") return `${order.id},none,0,${order.currency}`; // paid here, never paid there: over-credited
    if (order.id === "ord_1044") return `${order.id},approved,${order.amount},${order.currency}`; // paid there, not here
    const status = PROVIDER_STATUS[order.status];
    return `${order.id},${status},${status === "approved" ? order.credited : order.amount},${order.currency}`;
  });
  const csv = ["order_id,provider_status,amount,currency", ...rows].join("\n") + "\n";
  await page.goto("/reconciliation");
  await page.getByLabel(/Settlement report/).setInputFiles({ name: "broken-settlement.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: "Upload and run" }).click();
  await expect(page).toHaveURL(/\/reconciliation\/[a-z0-9]+$/);
  await expect(page.getByTestId("run-progress")).toHaveAttribute("data-status", "done", { timeout: 30_000 });
  await expect(page.getByTestId("mismatch-count")).toHaveText("2");
  const mismatches = page.getByTestId("mismatches-table").locator("tbody tr");
  await expect(mismatches).toHaveCount(2);
  await expect(mismatches.nth(0)).toHaveAttribute("data-order-id", "ord_1041");
  await expect(mismatches.nth(0)).toHaveAttribute("data-code", "unsettled_credit");
  expect(text(await mismatches.nth(0).innerText())).toContain("ARS 25,000.00");
  await expect(mismatches.nth(1)).toHaveAttribute("data-order-id", "ord_1044");
  await expect(mismatches.nth(1)).toHaveAttribute("data-code", "missing_credit");
  // One line per currency of the file: the planted ARS 25,000.00, nothing over-credited in the others.
  const totals = text(await page.getByTestId("overcredited-totals").innerText()).split("\n");
  expect(totals.length).toBe(new Set(orders.map((order) => order.currency)).size);
  expect(totals).toContain("ARS: ARS 25,000.00");
  for (const line of totals.filter((total) => !total.startsWith("ARS:"))) expect(line).toMatch(/^[A-Z]{3}: \D*0(\.00)?$/);
  await mismatches.nth(0).getByRole("link", { name: "ord_1041" }).click();
  await expect(page.getByRole("heading", { name: "Order ord_1041" })).toBeVisible();
});

test("over the upload limit, the page names it; a bad file is refused with its line; neither stores a run", async ({ page }) => {
  const before = query<{ n: number }>("SELECT COUNT(*) AS n FROM ReconciliationRun")[0].n;
  await page.goto("/reconciliation");
  await expect(page.getByText("At most 20 MB.")).toBeVisible();
  await page.getByLabel(/Settlement report/).setInputFiles({ name: "huge.csv", mimeType: "text/csv", buffer: Buffer.alloc(21 * 1024 * 1024, "a") });
  await page.getByRole("button", { name: "Upload and run" }).click();
  await expect(page.getByTestId("upload-result")).toHaveText("The report is larger than the upload limit of 20 MB.");
  await page.getByLabel(/Settlement report/).setInputFiles({ name: "bad.csv", mimeType: "text/csv", buffer: Buffer.from("balance_transaction_id,created_utc,currency,gross,net,reporting_category\n") });
  await page.getByRole("button", { name: "Upload and run" }).click();
  await expect(page.getByTestId("upload-result")).toHaveText("The report was refused: line 1: missing column(s) for Stripe's itemized balance change report: fee");
  await expect(page).toHaveURL(/\/reconciliation$/);
  expect(query<{ n: number }>("SELECT COUNT(*) AS n FROM ReconciliationRun")[0].n).toBe(before);
});
