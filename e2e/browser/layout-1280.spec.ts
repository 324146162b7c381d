// At 1280 px, in English and es-AR, long values stay in their own box: a run's scope never runs into
// its period, the runs list and the decision log fit their boxes (long ids and file names wrap, the
// reason keeps a readable width), so "Started by" and the secret label are on screen without scrolling.
import { expect, test, type Page } from "@playwright/test";
import { stripeReport } from "../support/stripe-report-csv";
import { deliverLab } from "./support/api";
import { E2E } from "./support/e2e-env";
import { screenshot, storageStateOf } from "./support/roles";

test.use({ viewport: { width: 1280, height: 900 } });

const bearer = { authorization: `Bearer ${E2E.apiToken}` };
const LONG_SOURCE = "settlement-balance-report-acct_acredita_demo-2026-12-01-to-2026-12-31-itemized-with-fees.csv";

/** A small Stripe report over December 2026 with a long source name, run to the end; returns its id. */
async function longNamedRun(page: Page): Promise<string> {
  const csv = stripeReport([{ txn: "txn_l1", at: "2026-12-02 12:00:00", currency: "usd", gross: "10.00", category: "charge", paymentIntent: "pi_layout_1" }]);
  const upload = await page.request.post(`/api/reconciliations?from=2026-12-01&to=2027-01-01&source=${LONG_SOURCE}`, { data: csv, headers: { ...bearer, "content-type": "text/csv" } });
  expect(upload.status()).toBe(202);
  const { runId } = (await upload.json()) as { runId: string };
  await expect(async () => {
    const run = (await (await page.request.get(`/api/reconciliations/${runId}`, { headers: bearer })).json()) as { run: { status: string } };
    expect(run.run.status).toBe("done");
  }).toPass({ timeout: 60_000 });
  return runId;
}

/** The summary values whose text reaches past their own cell (none when the layout is right). */
function overflowingSummaryValues(page: Page): Promise<string[]> {
  return page.locator("dl.summary").evaluate((list) =>
    [...list.querySelectorAll(":scope > div")].flatMap((cell) => {
      const value = cell.querySelector("dd")!;
      const range = document.createRange();
      range.selectNodeContents(value);
      const text = range.getBoundingClientRect();
      const box = cell.getBoundingClientRect();
      return text.right > box.right + 0.5 || value.scrollWidth > value.clientWidth ? [cell.querySelector("dt")!.textContent ?? "?"] : [];
    }),
  );
}

/** [scrollWidth, clientWidth] of the box around `testId`'s table. */
function tableFit(page: Page, testId: string): Promise<[number, number]> {
  return page.getByTestId(testId).evaluate((table) => {
    const wrap = table.closest(".table-wrap")!;
    return [wrap.scrollWidth, wrap.clientWidth] as [number, number];
  });
}

for (const locale of ["en-US", "es-AR"] as const) {
  test.describe(`in ${locale} at 1280 px`, () => {
    test.use({ storageState: storageStateOf("merchant"), locale });

    test("a run's scope and period each stay in their cell; the runs list fits its box with Started by on screen", async ({ page }, testInfo) => {
      const runId = await longNamedRun(page);
      await page.goto(`/reconciliation/${runId}`);
      await expect(page.getByTestId("run-scope")).toHaveText("stripe:acct_acredita_demo:live");
      await expect(page.getByTestId("run-period")).toHaveText(locale === "en-US" ? "Dec 1, 2026, 00:00:00 UTC – Jan 1, 2027, 00:00:00 UTC" : "1 de dic de 2026, 00:00:00 UTC – 1 de ene de 2027, 00:00:00 UTC");
      expect(await overflowingSummaryValues(page)).toEqual([]);
      const [scope, period] = [(await page.getByTestId("run-scope").boundingBox())!, (await page.getByTestId("run-period").boundingBox())!];
      expect(scope.y + scope.height <= period.y || scope.x + scope.width <= period.x || period.x + period.width <= scope.x).toBe(true);
      await screenshot(page, testInfo, `reconciliation-run-1280-${locale}`);

      await page.goto("/reconciliation");
      const row = page.getByTestId("runs-table").locator(`tr[data-run-id="${runId}"]`);
      // The file's name, then where the run came from (an upload), in the reader's language.
      await expect(row.getByTestId("run-source")).toHaveText(`${LONG_SOURCE} (${locale === "en-US" ? "upload" : "subida"})`);
      const [scrollWidth, clientWidth] = await tableFit(page, "runs-table");
      expect(scrollWidth).toBe(clientWidth);
      const startedBy = (await page.getByTestId("runs-table").locator("thead th").last().boundingBox())!;
      expect(startedBy.x + startedBy.width).toBeLessThanOrEqual(1280);
      await expect(page.getByTestId("runs-table").locator("thead th").last()).toHaveText(locale === "en-US" ? "Started by" : "Iniciada por");
      await screenshot(page, testInfo, `reconciliation-runs-1280-${locale}`);
    });

    test("the decision log fits its box: the secret label whole, the reason at least 18rem wide", async ({ page }, testInfo) => {
      // An event type far wider than its column: it must wrap, and only after a dot or an underscore.
      const longType = "payment.dispute.funds_withdrawn.by_the_issuing_bank.after_a_chargeback_request";
      const eventId = `evt_layout_long_type_${locale}`;
      const delivered = await deliverLab(page.request, { id: eventId, type: longType, orderId: `ord_layout_${locale}`, paymentId: `pay_layout_${locale}`, amount: 100 });
      expect(delivered.status).toBe(200);
      // The log's first page as it stands (other specs' rows among them), then this spec's own row, found by its event id.
      for (const [view, name] of [["/decisions", `decisions-1280-${locale}`], [`/decisions?eventId=${eventId}`, `decisions-1280-long-type-${locale}`]] as const) {
        await page.goto(view);
        const table = page.getByTestId("decisions-table");
        await expect(table.locator("tbody tr").first()).toBeVisible();
        const [scrollWidth, clientWidth] = await tableFit(page, "decisions-table");
        expect(scrollWidth, view).toBe(clientWidth);
        const cut = await table.getByTestId("secret-label").evaluateAll((labels) => labels.map((label) => label.closest("td")!).filter((cell) => cell.scrollWidth > cell.clientWidth).map((cell) => cell.textContent));
        expect(cut, view).toEqual([]);
        const reasonWidths = await table.getByTestId("reason").evaluateAll((cells) => cells.map((cell) => cell.getBoundingClientRect().width));
        expect(Math.min(...reasonWidths), view).toBeGreaterThanOrEqual(18 * 15);
        // A long event type (charge.dispute.funds_withdrawn) and a secret label (LAB_WEBHOOK_SECRET[0]) wrap after a dot or an underscore, never inside a word.
        const midWord = await table.locator('[data-testid="event-type"], [data-testid="secret-label"]').evaluateAll((spans) =>
          spans.flatMap((span) => {
            const found: string[] = [];
            const walker = document.createTreeWalker(span, NodeFilter.SHOW_TEXT);
            let previous: { top: number; char: string } | undefined;
            for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
              for (let index = 0; index < node.data.length; index++) {
                const range = document.createRange();
                range.setStart(node, index);
                range.setEnd(node, index + 1);
                const top = range.getBoundingClientRect().top;
                if (previous && top > previous.top + 1 && !/[._-]/.test(previous.char)) found.push(`${span.textContent} breaks after "${previous.char}"`);
                previous = { top, char: node.data[index] };
              }
            }
            return found;
          }),
        );
        expect(midWord, view).toEqual([]);
        const labelBox = (await table.getByTestId("secret-label").first().boundingBox())!;
        expect(labelBox.x + labelBox.width, view).toBeLessThanOrEqual(1280);
        await screenshot(page, testInfo, name);
      }
      // This spec's row: the long type, on more than one line.
      const table = page.getByTestId("decisions-table");
      await expect(table.locator("tbody tr")).toHaveCount(1);
      const longTypeLines = await table.getByTestId("event-type").filter({ hasText: "chargeback" }).evaluate((span) => Math.round(span.getBoundingClientRect().height / parseFloat(getComputedStyle(span).lineHeight)));
      expect(longTypeLines).toBeGreaterThan(1);
    });
  });
}
