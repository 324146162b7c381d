// The lab's deliveries on the orders page and in ord_1045's timeline (seeded by global.setup.ts).
import { expect, test } from "@playwright/test";
import { screenshot, storageStateOf } from "./support/roles";

test.use({ storageState: storageStateOf("merchant") });

const money = (text: string) => text.replace(/\u00a0/g, " ");

test("the lab's deliveries appear on the orders page with the right statuses and amounts", async ({ page }, testInfo) => {
  await page.goto("/orders?q=ord_104&sort=id&dir=asc");
  const rows = page.getByTestId("orders-table").locator("tbody tr");
  await expect(rows).toHaveCount(5);
  const expected = [
    ["ord_1041", "paid", "ARS 25,000.00", "ARS 25,000.00", "ARS 0.00"],
    ["ord_1042", "paid", "ARS 18,500.00", "ARS 18,500.00", "ARS 0.00"],
    ["ord_1043", "paid", "ARS 42,000.00", "ARS 42,000.00", "ARS 0.00"],
    ["ord_1044", "created", "ARS 30,000.00", "ARS 0.00", "ARS 0.00"],
    ["ord_1045", "refunded", "ARS 15,000.00", "ARS 0.00", "ARS 0.00"],
  ];
  for (const [index, [id, status, amount, credited, difference]] of expected.entries()) {
    const row = rows.nth(index);
    await expect(row.locator('[data-column="id"]')).toHaveText(id);
    await expect(row.locator("[data-status]")).toHaveAttribute("data-status", status);
    expect(money(await row.locator('[data-column="amount"]').innerText())).toBe(amount);
    expect(money(await row.locator('[data-column="credited"]').innerText())).toBe(credited);
    expect(money(await row.locator('[data-column="difference"]').innerText())).toBe(difference);
  }
  await screenshot(page, testInfo, "orders");
});

test("ord_1045's timeline shows the 409 dead letter, the approval, then the applied refund", async ({ page }, testInfo) => {
  await page.goto("/orders?q=ord_1045");
  await page.getByRole("link", { name: "ord_1045" }).click();
  await expect(page.getByRole("heading", { name: "Order ord_1045" })).toBeVisible();
  const rows = page.getByTestId("timeline").locator("tbody tr");
  await expect(rows).toHaveCount(3);
  const seen = await rows.evaluateAll((trs) => trs.map((tr) => [tr.getAttribute("data-event-id"), tr.getAttribute("data-http-status"), tr.getAttribute("data-outcome")]));
  expect(seen).toEqual([
    ["evt_0005", "409", "dead_lettered"],
    ["evt_0004", "200", "applied"],
    ["evt_0005", "200", "applied"],
  ]);
  // Reasons read with money formatted as the header shows it (ARS 15,000.00), never 1500000 minor units.
  await expect(rows.nth(0)).toContainText("order ord_1045 (created) cannot be refunded: payment pay_0004 was never credited");
  await expect(rows.nth(1).getByTestId("reason")).toHaveText(/^credited ARS\s15,000\.00; order ord_1045 created → paid$/);
  await expect(rows.nth(2).getByTestId("reason")).toHaveText(/^refunded ARS\s15,000\.00 \(total ARS\s15,000\.00\); order ord_1045 paid → refunded; dead letter resolved$/);
  const ledger = page.getByTestId("ledger").locator("tbody tr");
  await expect(ledger).toHaveCount(2);
  await expect(ledger.nth(0)).toContainText("credit:lab:lab:live:pay_0004");
  await expect(ledger.nth(1)).toContainText("refund:lab:lab:live:pay_0004");
  expect(money(await page.getByTestId("order-credited").innerText())).toBe("ARS 0.00");
  await expect(page.getByTestId("delivery")).toContainText("pay_0004");
  await screenshot(page, testInfo, "order-ord_1045");
});
