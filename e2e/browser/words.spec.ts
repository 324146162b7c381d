// What the pages say, as a new user read them: credited amounts say whether refunds are taken off, a
// partial refund says so, a review-first dead letter says what to do where (the provider's dashboard,
// then a note) and links the payment there, the dead letters filter by reason, provider and owner in
// the URL and an assignment can be undone or handed over, and the audit log names its targets by the
// event and order people search by. English and es-AR; each test seeds its own ids.
import { expect, test, type Page } from "@playwright/test";
import { createOrder, deliverLab } from "./support/api";
import { deadLetterOf, insertStripeAmountMismatch } from "./support/database";
import { demoUser, screenshot, storageStateOf } from "./support/roles";
import { untilHydrated } from "./support/hydration";

/** A paid order of 1,000.00 ARS refunded 300.00 of it: the order stays paid. */
async function partialRefund(request: Parameters<typeof createOrder>[0], orderId: string, suffix: string) {
  await createOrder(request, orderId, 100_000);
  expect((await deliverLab(request, { id: `evt_w_pay_${suffix}`, type: "payment.approved", orderId, paymentId: `pay_w_${suffix}`, amount: 100_000 })).outcome).toBe("applied");
  expect((await deliverLab(request, { id: `evt_w_ref_${suffix}`, type: "payment.refunded", orderId, paymentId: `pay_w_${suffix}`, amount: 30_000 })).outcome).toBe("applied");
}

const timelineReason = (page: Page, eventId: string) => page.getByTestId("timeline").locator(`tr[data-event-id="${eventId}"] [data-testid="reason"]`).first();

test.describe("as support", () => {
  test.use({ storageState: storageStateOf("support") });

  test("credited reads 'net of refunds', and a partial refund says the order stays paid", async ({ page, request }, testInfo) => {
    await partialRefund(request, "ord_w_partial_en", "en");
    await page.goto("/orders?q=ord_w_partial_en");
    await expect(page.getByRole("columnheader", { name: /Credited, net of refunds/ })).toBeVisible();
    await page.goto("/orders/ord_w_partial_en");
    await expect(page.getByText("Credited, net of refunds")).toBeVisible();
    await expect(timelineReason(page, "evt_w_ref_en")).toHaveText(/^partially refunded ARS\s300\.00 \(refunded in total ARS\s300\.00\); order ord_w_partial_en stays paid/);
    await expect(page.getByTestId("timeline")).not.toContainText("paid → paid");
    await screenshot(page, testInfo, "words-partial-refund-en");
  });

  test("a Stripe amount mismatch says to settle it in Stripe's dashboard, then resolve with a note, and links the payment there", async ({ page }, testInfo) => {
    insertStripeAmountMismatch("evt_w_stripe_test", "ord_w_stripe", "pi_3WTest1", false);
    insertStripeAmountMismatch("evt_w_stripe_live", "ord_w_stripe", "pi_3WLive1", true);
    await page.goto("/dead-letters?provider=stripe");
    const testRow = page.locator('tr[data-event-id="evt_w_stripe_test"]');
    await expect(testRow.getByTestId("next-action")).toHaveText(
      "Acredita cannot refund a payment or change an order: in the provider's dashboard, refund the payment (or settle the difference with the customer), then resolve this here with a note saying what you did",
    );
    await expect(testRow.getByTestId("payment-link")).toHaveText("Open payment pi_3WTest1 in Stripe's dashboard");
    await expect(testRow.getByTestId("payment-link")).toHaveAttribute("href", "https://dashboard.stripe.com/test/payments/pi_3WTest1");
    await expect(page.locator('tr[data-event-id="evt_w_stripe_live"]').getByTestId("payment-link")).toHaveAttribute("href", "https://dashboard.stripe.com/payments/pi_3WLive1");
    await testRow.getByRole("button", { name: "Retry evt_w_stripe_test" }).click();
    const dialog = page.getByTestId("retry-confirm").filter({ visible: true });
    await expect(dialog.getByRole("link", { name: "Open payment pi_3WTest1 in Stripe's dashboard" })).toHaveAttribute("href", "https://dashboard.stripe.com/test/payments/pi_3WTest1");
    await screenshot(page, testInfo, "words-review-first-dialog-en");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    // The lab has no dashboard: its amount mismatch says the same, with no link.
    await createOrder(page.request, "ord_w_lab_mismatch", 100_000);
    expect((await deliverLab(page.request, { id: "evt_w_lab_mismatch", type: "payment.approved", orderId: "ord_w_lab_mismatch", paymentId: "pay_w_lab_mismatch", amount: 90_000 })).status).toBe(422);
    await page.goto("/dead-letters?provider=lab&category=amount_mismatch");
    const labRow = page.locator('tr[data-event-id="evt_w_lab_mismatch"]');
    await expect(labRow.getByTestId("next-action")).toContainText("in the provider's dashboard, refund the payment");
    await expect(labRow.getByTestId("payment-link")).toHaveCount(0);
  });

  test("filters by reason, provider and owner stay in the URL; an assignment is undone, then handed to a colleague", async ({ page, request }, testInfo) => {
    insertStripeAmountMismatch("evt_w_owner", "ord_w_owner", "pi_3WOwner", false);
    await createOrder(request, "ord_w_other", 100_000);
    expect((await deliverLab(request, { id: "evt_w_other", type: "payment.refunded", orderId: "ord_w_other", paymentId: "pay_w_other", amount: 100_000 })).status).toBe(409);

    await page.goto("/dead-letters");
    const filters = page.getByRole("search", { name: "Dead-letter filters" });
    await filters.getByLabel("Reason").selectOption("amount_mismatch");
    await filters.getByLabel("Provider").selectOption("stripe");
    await filters.getByRole("button", { name: "Filter" }).click();
    await expect(page).toHaveURL(/\/dead-letters\?category=amount_mismatch&provider=stripe(&owner=)?$/);
    await expect(page.locator('tr[data-event-id="evt_w_owner"]')).toBeVisible();
    await expect(page.locator('tr[data-event-id="evt_w_other"]')).toHaveCount(0);
    // The resolved tab keeps the filters.
    await page.getByRole("link", { name: "Resolved" }).click();
    await expect(page).toHaveURL(/\/dead-letters\?tab=resolved&category=amount_mismatch&provider=stripe$/);
    await page.goto("/dead-letters?category=amount_mismatch&provider=stripe");

    const row = page.locator('tr[data-event-id="evt_w_owner"]');
    await row.getByRole("button", { name: "Assign to me: evt_w_owner" }).click();
    await expect(page.getByTestId("action-result")).toHaveText("Assigned to you.");
    await expect(row.locator('[data-column="owner"]')).toHaveText(demoUser("support").email);
    await row.getByRole("button", { name: "Unassign: evt_w_owner" }).click();
    await expect(page.getByTestId("action-result")).toHaveText("Nobody owns it now.");
    await expect(row.locator('[data-column="owner"]')).toHaveText("unassigned");
    await row.getByText("Hand to a colleague").click();
    await row.getByLabel("Colleague").selectOption(demoUser("admin").email);
    await row.getByRole("button", { name: "Hand over" }).click();
    await expect(page.getByTestId("action-result")).toHaveText(`Handed to ${demoUser("admin").email}.`);
    await expect(row.locator('[data-column="owner"]')).toHaveText(demoUser("admin").email);
    expect(deadLetterOf("evt_w_owner").owner).toBe(demoUser("admin").email);

    await page.goto(`/dead-letters?owner=${encodeURIComponent(demoUser("admin").email)}`);
    await expect(page.getByRole("search", { name: "Dead-letter filters" }).getByLabel("Owner")).toHaveValue(demoUser("admin").email);
    await expect(page.locator('tr[data-event-id="evt_w_owner"]')).toBeVisible();
    await expect(page.locator('tr[data-event-id="evt_w_other"]')).toHaveCount(0);
    await page.goto("/dead-letters?owner=none&provider=lab");
    await expect(page.locator('tr[data-event-id="evt_w_other"]')).toBeVisible();
    await expect(page.locator('tr[data-event-id="evt_w_owner"]')).toHaveCount(0);
    await screenshot(page, testInfo, "words-dead-letters-filtered-en");
  });

  test("the results of a bulk retry are all in view, not in a scrolling box", async ({ page, request }, testInfo) => {
    for (const name of ["a", "b", "c", "d", "e", "f"]) {
      await createOrder(request, `ord_w_bulk_${name}`, 100_000);
      expect((await deliverLab(request, { id: `evt_w_bulk_${name}`, type: "payment.refunded", orderId: `ord_w_bulk_${name}`, paymentId: `pay_w_bulk_${name}`, amount: 100_000 })).status).toBe(409);
    }
    await page.goto("/dead-letters?provider=lab&category=transition");
    // A box ticked before React hydrates it is ticked on the page but not in the selection.
    await untilHydrated(page.getByRole("checkbox", { name: "Select dead letter of evt_w_bulk_a" }));
    for (const name of ["a", "b", "c", "d", "e", "f"]) await page.getByRole("checkbox", { name: `Select dead letter of evt_w_bulk_${name}` }).check();
    await page.getByTestId("retry-selected").click();
    const results = page.getByTestId("action-result");
    await expect(results.locator("p")).toHaveCount(6);
    const box = await results.evaluate((element) => ({ overflowY: getComputedStyle(element).overflowY, hidden: element.scrollHeight - element.clientHeight }));
    expect(box).toEqual({ overflowY: "visible", hidden: 0 });
    await screenshot(page, testInfo, "words-bulk-results-en");
  });
});

test.describe("as admin", () => {
  test.use({ storageState: storageStateOf("admin") });

  test("the reconciliation form offers the configured endpoints' scopes, and a run takes the one chosen", async ({ page, request }, testInfo) => {
    await createOrder(request, "ord_w_recon", 100_000);
    expect((await deliverLab(request, { id: "evt_w_recon", type: "payment.approved", orderId: "ord_w_recon", paymentId: "pay_w_recon", amount: 100_000 })).outcome).toBe("applied");
    await page.goto("/reconciliation");
    const scope = page.getByLabel("Scope");
    // The browser server serves only the lab's endpoint: one scope, and detection.
    await expect(scope.locator("option")).toHaveText(["Detect from the report (Stripe, lab)", "lab · lab · Live (endpoint lab)"]);
    await expect(page.getByLabel(/^Provider/)).toHaveCount(0);
    await expect(page.getByLabel(/^Account/)).toHaveCount(0);
    await scope.selectOption("lab:lab:live");
    await screenshot(page, testInfo, "words-reconciliation-scope-en");
    await page.getByLabel(/Settlement report/).setInputFiles({ name: "words-lab.csv", mimeType: "text/csv", buffer: Buffer.from("order_id,provider_status,amount,currency\nord_w_recon,approved,100000,ARS\n") });
    await page.getByRole("button", { name: "Upload and run" }).click();
    await expect(page).toHaveURL(/\/reconciliation\/[^/]+$/);
    await expect(page.getByTestId("run-scope")).toHaveText("lab:lab:live");
  });

  test("the audit log names a dead letter by its event and order, linked where people look them up", async ({ page, request }) => {
    await createOrder(request, "ord_w_audit", 100_000);
    expect((await deliverLab(request, { id: "evt_w_audit", type: "payment.refunded", orderId: "ord_w_audit", paymentId: "pay_w_audit", amount: 100_000 })).status).toBe(409);
    const letter = deadLetterOf("evt_w_audit");
    await page.goto("/dead-letters?provider=lab");
    await page.locator('tr[data-event-id="evt_w_audit"]').getByRole("button", { name: "Assign to me: evt_w_audit" }).click();
    await expect(page.getByTestId("action-result")).toHaveText("Assigned to you.");

    await page.goto("/admin/audit?action=dead_letter.assign");
    const target = page.locator(`[data-testid="audit-target"][title="${letter.id}"]`);
    await expect(target).toHaveText("dead letter event evt_w_audit · order ord_w_audit");
    await expect(target.getByTestId("audit-target-event")).toHaveAttribute("href", "/decisions?eventId=evt_w_audit");
    await expect(target.getByTestId("audit-target-order")).toHaveAttribute("href", "/orders/ord_w_audit");
    await expect(page.getByTestId("audit-table")).not.toContainText(letter.id);
    // Found by the order id people have at hand.
    await page.goto("/admin/audit");
    await page.getByLabel("Event, order or payment id").fill("ord_w_audit");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page).toHaveURL(/[?&]target=ord_w_audit(&|$)/);
    await expect(page.getByTestId("audit-table").locator("tbody tr")).toHaveCount(1);
    await expect(page.getByTestId("audit-target")).toHaveText("dead letter event evt_w_audit · order ord_w_audit");
  });
});

test.describe("in Spanish", () => {
  test.use({ storageState: storageStateOf("support"), locale: "es-AR" });

  test("the same words in es-AR: net of refunds, a partial refund, a retained event (no 'error'), the payment in Stripe's dashboard", async ({ page, request }, testInfo) => {
    await partialRefund(request, "ord_w_partial_es", "es");
    await page.goto("/orders/ord_w_partial_es");
    await expect(page.getByText("Acreditado, neto de reembolsos")).toBeVisible();
    await expect(timelineReason(page, "evt_w_ref_es")).toHaveText(/^reembolso parcial de \$\s300,00 \(reembolsado en total: \$\s300,00\); la orden ord_w_partial_es sigue pagada/);

    insertStripeAmountMismatch("evt_w_stripe_es", "ord_w_stripe_es", "pi_3WEs1", false);
    await page.goto("/dead-letters?provider=stripe");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Eventos retenidos");
    await expect(page.getByRole("navigation", { name: "Principal" })).toContainText("Eventos retenidos");
    await expect(page.getByRole("navigation", { name: "Principal" })).not.toContainText("errores");
    const row = page.locator('tr[data-event-id="evt_w_stripe_es"]');
    await expect(row.getByTestId("next-action")).toHaveText(
      "Acredita no puede reembolsar un pago ni cambiar una orden: en el panel del proveedor, reembolsá el pago (o arreglá la diferencia con el cliente) y después resolvelo acá con una nota que diga qué hiciste",
    );
    await expect(row.getByTestId("payment-link")).toHaveText("Abrir el pago pi_3WEs1 en el panel de Stripe");
    await expect(page.getByRole("search", { name: "Filtros de eventos retenidos" }).getByLabel("Proveedor")).toHaveValue("stripe");
    await row.getByRole("button", { name: "Asignarme: evt_w_stripe_es" }).click();
    await expect(page.getByTestId("action-result")).toHaveText("Quedó asignado a vos.");
    await row.getByRole("button", { name: "Quitar responsable: evt_w_stripe_es" }).click();
    await expect(page.getByTestId("action-result")).toHaveText("Ya no tiene responsable.");
    await screenshot(page, testInfo, "words-dead-letters-es-AR");

    await page.goto("/reconciliation");
    await expect(page.getByLabel("Alcance").locator("option")).toHaveText(["Detectar del reporte (Stripe, lab)", "lab · lab · Producción (endpoint lab)"]);
  });
});
