// The review queue: an extra charge (second payment for a paid order) and an uncertain outbox row,
// resolved with a note by support; the merchant reads them without controls. On a server of its own: the
// queue's empty state and the health strip's count are the whole server's (the Spanish walk leaves an
// extra charge of its own open on the shared server).
import { expect } from "@playwright/test";
import { createOrder, deliverLab } from "./support/api";
import { testOnOwnServer } from "./support/own-server";
import { screenshot } from "./support/roles";

const test = testOnOwnServer("review");

test.beforeAll(async ({ request, own }) => {
  await createOrder(request, "ord_e2e_extra", 700_000);
  expect((await deliverLab(request, { id: "evt_e2e_extra_1", type: "payment.approved", orderId: "ord_e2e_extra", paymentId: "pay_e2e_extra_1", amount: 700_000 })).reason).toContain("credited 700000 ARS");
  const second = await deliverLab(request, { id: "evt_e2e_extra_2", type: "payment.approved", orderId: "ord_e2e_extra", paymentId: "pay_e2e_extra_2", amount: 700_000 });
  expect(second.reason).toContain("recorded as an extra charge for review");
  own.db.insertUncertainOutboxRow("outbox_e2e_1", "ord_e2e_extra");
});

test.describe("as merchant", () => {
  test.use({ role: "merchant" });
  test("the merchant sees the queue and the health strip, without resolve controls", async ({ page }) => {
    await page.goto("/review");
    await expect(page.getByTestId("extra-charges").locator("tbody tr")).toHaveCount(1);
    await expect(page.getByTestId("uncertain-outbox").locator("tbody tr")).toHaveCount(1);
    await expect(page.getByRole("button", { name: "Resolve" })).toHaveCount(0);
    await expect(page.getByTestId("health-uncertain")).toHaveText("1");
  });
});

test.describe("as support", () => {
  test.use({ role: "support" });
  test("support resolves the extra charge and the uncertain outbox row with notes", async ({ page, own }, testInfo) => {
    await page.goto("/review");
    const extra = page.getByTestId("extra-charges").locator("tbody tr");
    await expect(extra).toHaveCount(1);
    await expect(extra).toContainText("pay_e2e_extra_2");
    expect((await extra.innerText()).replace(/\u00a0/g, " ")).toContain("ARS 7,000.00");
    await screenshot(page, testInfo, "review");

    await extra.getByRole("textbox", { name: "Note" }).fill("refunded the second charge in the provider console");
    await extra.getByRole("button", { name: "Resolve" }).click();
    await expect(page.getByTestId("extra-charges")).toHaveCount(0);
    await expect(page.getByText("No extra charges waiting.")).toBeVisible();
    await expect(page.getByTestId("review-result")).toHaveText("The extra charge was resolved with your note.");

    const outbox = page.getByTestId("uncertain-outbox").locator("tbody tr");
    await outbox.getByRole("textbox", { name: "Note" }).fill("merchant confirmed the fulfilment arrived");
    await outbox.getByRole("button", { name: "Resolve" }).click();
    await expect(page.getByText("No uncertain outbox rows.")).toBeVisible();
    await expect(page.getByTestId("review-result")).toHaveText("The outbox message was resolved with your note.");
    await expect(page.getByTestId("health-uncertain")).toHaveText("0");

    expect(own.db.query<{ status: string; note: string; resolvedBy: string }>("SELECT status, note, resolvedBy FROM ExtraCharge WHERE paymentKey = 'pay_e2e_extra_2'")).toEqual([
      { status: "resolved", note: "refunded the second charge in the provider console", resolvedBy: "support@acredita.test" },
    ]);
    expect(own.db.query<{ status: string; note: string }>("SELECT status, note FROM OutboxMessage WHERE id = 'outbox_e2e_1'")).toEqual([{ status: "resolved", note: "merchant confirmed the fulfilment arrived" }]);
    expect(own.db.query<{ action: string }>("SELECT action FROM AuditEntry WHERE action IN ('extra_charge.resolve', 'outbox.resolve') ORDER BY at").map((row) => row.action)).toEqual(["extra_charge.resolve", "outbox.resolve"]);
  });
});
