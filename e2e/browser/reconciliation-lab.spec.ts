// The lab's order-level settlement file from the reconciliation page: exactly its two planted mismatches,
// linked to the orders' timelines, with the over-credited sum per currency. On a server of its own: the
// lab's file reconciles every order the lab credited, and other specs pay orders through the lab.
import { expect } from "@playwright/test";
import { createOrder, deliverLab } from "./support/api";
import { testOnOwnServer } from "./support/own-server";
import { screenshot } from "./support/roles";

const test = testOnOwnServer("reconciliation-lab");
test.use({ role: "merchant" });

const text = (value: string) => value.replace(/[\u00a0\u202f]/g, " ");

test("the lab's order-level file: exactly its two planted mismatches, linked to the timelines", async ({ page, request }, testInfo) => {
  const pay = async (orderId: string, amount: number, currency = "ARS") => {
    await createOrder(request, orderId, amount, currency);
    expect((await deliverLab(request, { id: `evt_${orderId}_pay`, type: "payment.approved", orderId, paymentId: `pay_${orderId}`, amount, currency })).outcome).toBe("applied");
  };
  // ord_rc_1 paid here and never there (over-credited), ord_rc_4 paid there and not here (missing); the
  // other two agree: a payment, and a USD payment refunded.
  await pay("ord_rc_1", 2_500_000);
  await pay("ord_rc_2", 1_850_000);
  await pay("ord_rc_3", 4_200, "USD");
  expect((await deliverLab(request, { id: "evt_ord_rc_3_refund", type: "payment.refunded", orderId: "ord_rc_3", paymentId: "pay_ord_rc_3", amount: 4_200, currency: "USD" })).outcome).toBe("applied");
  await createOrder(request, "ord_rc_4", 3_000_000);
  const csv = ["order_id,provider_status,amount,currency", "ord_rc_1,none,0,ARS", "ord_rc_2,approved,1850000,ARS", "ord_rc_3,refunded,4200,USD", "ord_rc_4,approved,3000000,ARS"].join("\n") + "\n";

  await page.goto("/reconciliation");
  await page.getByLabel(/Settlement report/).setInputFiles({ name: "broken-settlement.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: "Upload and run" }).click();
  await expect(page).toHaveURL(/\/reconciliation\/[a-z0-9]+$/);
  await expect(page.getByTestId("run-progress")).toHaveAttribute("data-status", "done", { timeout: 30_000 });
  await expect(page.getByTestId("mismatch-count")).toHaveText("2");
  const mismatches = page.getByTestId("mismatches-table").locator("tbody tr");
  await expect(mismatches).toHaveCount(2);
  await expect(mismatches.nth(0)).toHaveAttribute("data-order-id", "ord_rc_1");
  await expect(mismatches.nth(0)).toHaveAttribute("data-code", "unsettled_credit");
  expect(text(await mismatches.nth(0).innerText())).toContain("ARS 25,000.00");
  await expect(mismatches.nth(1)).toHaveAttribute("data-order-id", "ord_rc_4");
  await expect(mismatches.nth(1)).toHaveAttribute("data-code", "missing_credit");
  // One line per currency of the file: the planted ARS 25,000.00, nothing over-credited in USD.
  const totals = text(await page.getByTestId("overcredited-totals").innerText()).split("\n");
  expect(totals).toEqual(["ARS: ARS 25,000.00", "USD: $0.00"]);
  await screenshot(page, testInfo, "reconciliation-lab-file");
  await mismatches.nth(0).getByRole("link", { name: "ord_rc_1" }).click();
  await expect(page.getByRole("heading", { name: "Order ord_rc_1" })).toBeVisible();
});
