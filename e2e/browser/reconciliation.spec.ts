// Reconciliation from the page: the upload goes to POST /api/reconciliations (a 1.4 MB Stripe report, over
// the 128 KB server-action body limit and the proxy's 1 MB), the run's page shows the progress bar while
// the run waits and refreshes itself when the worker is done, then the totals per currency formatted for
// the locale and the mismatches (filter by code, sort, pages, CSV export), each linked to the order's
// timeline. A file over the upload limit is refused naming it; a bad file is refused with its line. (The
// lab's order-level file: reconciliation-lab.spec.ts.) Volume is not this spec's subject: a report read in
// many batches is tests/integration/reconcile-batches.test.ts (both databases), the HTTP cap and streaming
// e2e/http/reconcile-api.test.ts, and a report of millions of lines `npm run bench`.
import { expect, test } from "@playwright/test";
import { stripeReport, type ReportLine } from "../support/stripe-report-csv";
import { holdRunScope, query } from "./support/database";
import { screenshot, storageStateOf } from "./support/roles";

test.use({ storageState: storageStateOf("merchant") });

const text = (value: string) => value.replace(/[\u00a0\u202f]/g, " ");
/** Three batches of the run's 500 lines, and more than one page of mismatches at every page size. */
const LINES = 1_200;
const SCOPE = "stripe:acct_acredita_demo:live";

test("a Stripe report of 1.4 MB: progress bar while it waits, refreshed when done, totals per currency, mismatches filtered, sorted, paged, exported, linked", async ({ page }, testInfo) => {
  // A description of 1 KB per line, as a long one would be: the file passes the proxy's 1 MB body cap.
  const lines: ReportLine[] = Array.from({ length: LINES }, (_, i) => ({ txn: `txn_b${i}`, at: "2026-11-29 12:00:00", currency: i % 3 === 0 ? "jpy" : "usd", gross: i % 3 === 0 ? "500" : "10.00", category: "charge", paymentIntent: `pi_b${String(i).padStart(5, "0")}`, orderId: i === 1 ? "ord_1041" : undefined, description: `e2e report line ${i} `.padEnd(1_024, "x") }));
  const csv = Buffer.from(stripeReport(lines));
  expect(csv.length).toBeGreaterThan(1024 * 1024);

  // The scope held as a running run holds it: the upload's run waits, queued, until the hold ends.
  const hold = await holdRunScope("e2e_recon_hold", SCOPE);
  let held = true;
  try {
    await page.goto("/reconciliation");
    await page.getByLabel(/Settlement report/).setInputFiles({ name: "stripe-balance.csv", mimeType: "text/csv", buffer: csv });
    await page.getByLabel("Label (optional)").fill("e2e stripe report");
    await page.getByRole("button", { name: "Upload and run" }).click();
    await expect(page).toHaveURL(/\/reconciliation\/[a-z0-9]+$/, { timeout: 30_000 });
    const progress = page.getByTestId("run-progress");
    // The bar is there while the run is queued or running, and the page refreshes itself when it ends.
    await expect(progress).toHaveAttribute("data-status", "queued");
    await expect(page.getByTestId("run-progress-bar")).toBeVisible();
    await expect(page.getByTestId("mismatch-count")).toHaveText("0");
    await screenshot(page, testInfo, "reconciliation-progress");
    hold.release();
    held = false;
  } finally {
    if (held) hold.release();
  }
  // No reload: the page's own polling sees the run end and refreshes the server-rendered results.
  await expect(page.getByTestId("run-progress")).toHaveAttribute("data-status", "done", { timeout: 30_000 });
  await expect(page.getByTestId("mismatch-count")).toHaveText(String(LINES), { timeout: 20_000 });
  await expect(page.getByTestId("run-scope")).toHaveText("stripe:acct_acredita_demo:live");

  // Totals per currency, formatted by Intl (never raw minor units): 800 USD charges of $10.00, 400 JPY of ¥500.
  const usd = page.getByTestId("totals-table").locator('tr[data-currency="USD"]');
  await expect(usd.locator('td[data-column="gross"]')).toHaveText("$8,000.00");
  await expect(usd.locator('td[data-column="underCredited"]')).toHaveText("$8,000.00");
  // Credits before refunds, unlike an order's "credited, net of refunds".
  await expect(page.getByTestId("totals-table").getByRole("columnheader", { name: "Credits (gross)" })).toBeVisible();
  await expect(page.getByTestId("totals-table").locator('tr[data-currency="JPY"] td[data-column="gross"]')).toHaveText("¥200,000");

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
  await expect(rows.nth(0)).toHaveAttribute("data-payment-id", `pi_b${String(LINES - 1).padStart(5, "0")}`);
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
    expect(usd).toBe("US$ 8.000,00");
    await expect(page.getByTestId("totals-table").getByRole("columnheader", { name: "Créditos (brutos)" })).toBeVisible();
    await expect(page.getByTestId("code-filter").getByRole("link", { name: "falta la acreditación" })).toBeVisible();
    await expect(page.getByTestId("run-progress")).toContainText("terminada");
  });
});

test("over the upload limit, the page names it; a bad file is refused with its line; neither stores a run", async ({ page }) => {
  // Named for this spec alone: a run stored from either would carry its file's name as its source.
  const stored = () => query<{ n: number }>("SELECT COUNT(*) AS n FROM ReconciliationRun WHERE source IN ('e2e-recon-huge.csv', 'e2e-recon-bad.csv')")[0].n;
  expect(stored()).toBe(0);
  await page.goto("/reconciliation");
  await expect(page.getByText("At most 2 MB.")).toBeVisible();
  await page.getByLabel(/Settlement report/).setInputFiles({ name: "e2e-recon-huge.csv", mimeType: "text/csv", buffer: Buffer.alloc(2 * 1024 * 1024 + 1, "a") });
  await page.getByRole("button", { name: "Upload and run" }).click();
  await expect(page.getByTestId("upload-result")).toHaveText("The report is larger than the upload limit of 2 MB.");
  await page.getByLabel(/Settlement report/).setInputFiles({ name: "e2e-recon-bad.csv", mimeType: "text/csv", buffer: Buffer.from("balance_transaction_id,created_utc,currency,gross,net,reporting_category\n") });
  await page.getByRole("button", { name: "Upload and run" }).click();
  await expect(page.getByTestId("upload-result")).toHaveText("The report was refused: line 1: missing column(s) for Stripe's itemized balance change report: fee");
  await expect(page).toHaveURL(/\/reconciliation$/);
  expect(stored()).toBe(0);
});
