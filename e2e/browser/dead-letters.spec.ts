// Dead letters from the support desk's side: retry (one, bulk), a retry that fails again, assign,
// resolve with a note (audit row), and a merchant who can neither see nor call the support actions.
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { createOrder, deliverLab } from "./support/api";
import { deadLetterOf, query } from "./support/database";
import { E2E } from "./support/e2e-env";
import { screenshot, storageStateOf } from "./support/roles";
import { untilHydrated } from "./support/hydration";

/** Parks a refund that arrives before its approval: 409 and one open dead letter. */
async function parkEarlyRefund(request: Parameters<typeof createOrder>[0], orderId: string, eventId: string, paymentId: string, amount = 100_000) {
  await createOrder(request, orderId, amount);
  const answer = await deliverLab(request, { id: eventId, type: "payment.refunded", orderId, paymentId, amount });
  expect(answer.status).toBe(409);
  expect(answer.outcome).toBe("dead_lettered");
}

/** The action id Next.js gave a server action in this build (.next/server/server-reference-manifest.json). */
function actionId(exportedName: string): string {
  const manifest = JSON.parse(readFileSync(path.join(".next", "server", "server-reference-manifest.json"), "utf8")) as { node: Record<string, { exportedName?: string; filename?: string }> };
  const entry = Object.entries(manifest.node).find(([, value]) => value.exportedName === exportedName && value.filename?.includes("dead-letters"));
  if (!entry) throw new Error(`no server action ${exportedName} in the build`);
  return entry[0];
}

/**
 * Posts a `(previousState, formData)` server action exactly as React's client does: the form fields
 * under the "_1_" prefix, then field "0" naming the arguments (FormData keeps this order; the decoder
 * resolves "$K1" from the fields received before it).
 */
function actionBody(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(`_1_${name}`, value);
  form.append("0", JSON.stringify([null, "$K1"]));
  return form;
}

test.describe("as support", () => {
  test.use({ storageState: storageStateOf("support") });

  test("a dead letter retried from the page applies and disappears from the open tab", async ({ page, request }, testInfo) => {
    await parkEarlyRefund(request, "ord_e2e_dl_retry", "evt_e2e_dl_refund", "pay_e2e_dl_1");
    expect((await deliverLab(request, { id: "evt_e2e_dl_approve", type: "payment.approved", orderId: "ord_e2e_dl_retry", paymentId: "pay_e2e_dl_1", amount: 100_000 })).outcome).toBe("applied");

    await page.goto("/dead-letters");
    const row = page.locator('tr[data-event-id="evt_e2e_dl_refund"]');
    await expect(row).toBeVisible();
    await screenshot(page, testInfo, "dead-letters-open");
    await row.getByRole("button", { name: "Retry evt_e2e_dl_refund" }).click();
    await expect(page.getByTestId("action-result")).toContainText("evt_e2e_dl_refund (order ord_e2e_dl_retry): applied. refunded ARS 1,000.00 (total ARS 1,000.00); order ord_e2e_dl_retry paid → refunded; dead letter resolved");
    // It stays in its place, marked resolved, until the page is loaded again.
    await expect(row).toHaveAttribute("data-state", "departed");
    await expect(row.locator('[data-column="actions"]')).toHaveText("resolved just now", { useInnerText: true }); // what shows: the actions stay laid out, hidden, under the badge
    await page.reload();
    await expect(page.locator('tr[data-event-id="evt_e2e_dl_refund"]')).toHaveCount(0);

    await page.getByRole("link", { name: "Resolved" }).click();
    await expect(page).toHaveURL(/tab=resolved/);
    await expect(page.locator('tr[data-event-id="evt_e2e_dl_refund"]')).toContainText("applied on a later attempt");
    await screenshot(page, testInfo, "dead-letters-resolved");

    const letter = deadLetterOf("evt_e2e_dl_refund");
    expect(letter.status).toBe("resolved");
    expect(query<{ n: number }>("SELECT COUNT(*) AS n FROM AuditEntry WHERE action = 'dead_letter.retry' AND targetId = ?", letter.id)[0].n).toBe(1);
    expect(query<{ n: number }>("SELECT COUNT(*) AS n FROM LedgerEntry WHERE orderId = 'ord_e2e_dl_retry'")[0].n).toBe(2);
  });

  test("a retry that fails again stays open with its new attempt count", async ({ page, request }) => {
    await parkEarlyRefund(request, "ord_e2e_dl_again", "evt_e2e_dl_again", "pay_e2e_dl_2");
    await page.goto("/dead-letters");
    const row = page.locator('tr[data-event-id="evt_e2e_dl_again"]');
    await expect(row.getByTestId("attempts")).toHaveText("1");
    await expect(row.getByTestId("retry-badge")).toHaveText("retryable");
    await row.getByRole("button", { name: "Retry evt_e2e_dl_again" }).click();
    await expect(page.getByTestId("action-result")).toContainText("failed again (attempt 2)");
    await expect(row.getByTestId("attempts")).toHaveText("2");
    expect(deadLetterOf("evt_e2e_dl_again")).toMatchObject({ status: "open", attempts: 2 });
  });

  test("selected dead letters are retried together", async ({ page, request }) => {
    for (const n of [1, 2]) {
      await parkEarlyRefund(request, `ord_e2e_bulk_${n}`, `evt_e2e_bulk_refund_${n}`, `pay_e2e_bulk_${n}`);
      expect((await deliverLab(request, { id: `evt_e2e_bulk_approve_${n}`, type: "payment.approved", orderId: `ord_e2e_bulk_${n}`, paymentId: `pay_e2e_bulk_${n}`, amount: 100_000 })).status).toBe(200);
    }
    await page.goto("/dead-letters");
    await untilHydrated(page.getByLabel("Select dead letter of evt_e2e_bulk_refund_1"));
    await page.getByLabel("Select dead letter of evt_e2e_bulk_refund_1").check();
    await page.getByLabel("Select dead letter of evt_e2e_bulk_refund_2").check();
    await expect(page.getByTestId("retry-selected")).toHaveText("Retry selected (2)");
    await page.getByTestId("retry-selected").click();
    await expect(page.getByTestId("action-result").locator("p")).toHaveCount(2);
    await expect(page.getByTestId("action-result").locator("p").nth(0)).toContainText("evt_e2e_bulk_refund_");
    await expect(page.locator('tr[data-event-id^="evt_e2e_bulk_refund_"][data-state="departed"]')).toHaveCount(2);
    await page.reload();
    await expect(page.locator('tr[data-event-id^="evt_e2e_bulk_refund_"]')).toHaveCount(0);
    expect(deadLetterOf("evt_e2e_bulk_refund_1").status).toBe("resolved");
    expect(deadLetterOf("evt_e2e_bulk_refund_2").status).toBe("resolved");
  });

  test("assign to me, then resolve with a note: owner, resolution and audit rows", async ({ page, request }) => {
    await parkEarlyRefund(request, "ord_e2e_dl_note", "evt_e2e_dl_note", "pay_e2e_dl_3");
    await page.goto("/dead-letters");
    const row = page.locator('tr[data-event-id="evt_e2e_dl_note"]');
    await row.getByRole("button", { name: "Assign to me: evt_e2e_dl_note" }).click();
    await expect(page.getByTestId("action-result")).toContainText("Assigned to you.");
    await expect(row.locator('[data-column="owner"]')).toHaveText("support@acredita.test");
    // Now theirs: no "assign to me" on it any more.
    await expect(row.getByRole("button", { name: "Assign to me: evt_e2e_dl_note" })).toHaveCount(0);

    await row.getByText("Resolve with a note").click();
    await row.getByRole("textbox", { name: "Note" }).fill("refunded by hand in the provider's console");
    await row.getByRole("button", { name: "Resolve" }).click();
    await expect(page.getByTestId("action-result")).toContainText("Resolved with your note.");
    await expect(row).toHaveAttribute("data-state", "departed");

    const letter = deadLetterOf("evt_e2e_dl_note");
    expect(letter).toMatchObject({ status: "resolved", owner: "support@acredita.test", resolution: "refunded by hand in the provider's console" });
    const audit = query<{ action: string; actorEmail: string; note: string }>("SELECT action, actorEmail, note FROM AuditEntry WHERE targetId = ? ORDER BY at", letter.id);
    expect(audit).toEqual([
      { action: "dead_letter.assign", actorEmail: "support@acredita.test", note: "owner support@acredita.test" },
      { action: "dead_letter.resolve", actorEmail: "support@acredita.test", note: "refunded by hand in the provider's console" },
    ]);
  });
});

test.describe("as merchant", () => {
  test.use({ storageState: storageStateOf("merchant") });

  test("the merchant sees the dead letter but no retry, assign, resolve or select controls", async ({ page, request }, testInfo) => {
    await parkEarlyRefund(request, "ord_e2e_dl_merchant", "evt_e2e_dl_merchant", "pay_e2e_dl_4");
    await page.goto("/dead-letters");
    await expect(page.locator('tr[data-event-id="evt_e2e_dl_merchant"]')).toBeVisible();
    await expect(page.getByRole("button", { name: /Retry/ })).toHaveCount(0);
    await expect(page.getByRole("button", { name: /Assign to me/ })).toHaveCount(0);
    await expect(page.getByText("Resolve with a note")).toHaveCount(0);
    await expect(page.getByRole("checkbox")).toHaveCount(0);
    await screenshot(page, testInfo, "dead-letters-merchant");
  });

  test("the merchant posting the retry action directly is refused and nothing changes", async ({ request }) => {
    await parkEarlyRefund(request, "ord_e2e_dl_direct", "evt_e2e_dl_direct", "pay_e2e_dl_5");
    expect((await deliverLab(request, { id: "evt_e2e_dl_direct_ok", type: "payment.approved", orderId: "ord_e2e_dl_direct", paymentId: "pay_e2e_dl_5", amount: 100_000 })).status).toBe(200);
    const letter = deadLetterOf("evt_e2e_dl_direct");
    const retry = actionId("retryDeadLettersAction");
    const post = async (role: "merchant" | "support") => {
      const context = await playwrightRequest.newContext({ baseURL: E2E.baseURL, storageState: storageStateOf(role) });
      const response = await context.post("/dead-letters", {
        headers: { "Next-Action": retry, Origin: E2E.baseURL, Accept: "text/x-component" },
        multipart: actionBody({ id: letter.id }),
      });
      const text = await response.text();
      await context.dispose();
      return { status: response.status(), text };
    };

    const merchant = await post("merchant");
    expect(merchant.status).toBe(200);
    expect(merchant.text).toContain('"code":"forbidden"');
    expect(deadLetterOf("evt_e2e_dl_direct")).toMatchObject({ status: "open", attempts: 1 });
    expect(query<{ n: number }>("SELECT COUNT(*) AS n FROM AuditEntry WHERE targetId = ?", letter.id)[0].n).toBe(0);
    expect(query<{ n: number }>("SELECT COUNT(*) AS n FROM LedgerEntry WHERE orderId = 'ord_e2e_dl_direct'")[0].n).toBe(1);

    // The same request from a support session applies: the merchant was refused for the role, not the format.
    const support = await post("support");
    expect(support.text).not.toContain('"code":"forbidden"');
    expect(deadLetterOf("evt_e2e_dl_direct").status).toBe("resolved");
    expect(query<{ n: number }>("SELECT COUNT(*) AS n FROM LedgerEntry WHERE orderId = 'ord_e2e_dl_direct'")[0].n).toBe(2);
  });
});
