// English and Spanish (es-AR): chosen from Accept-Language, switchable (cookie), with amounts and dates
// formatted for the locale ($ 25.000,00 for 2500000 ARS minor units in es-AR).
import { expect, test } from "@playwright/test";
import { screenshot, storageStateOf } from "./support/roles";

test.use({ storageState: storageStateOf("merchant"), locale: "es-AR" });

const text = (value: string) => value.replace(/\u00a0/g, " ");

test("a Spanish browser gets Spanish pages and Argentine amounts; the switch changes and keeps the language", async ({ page }, testInfo) => {
  await page.goto("/orders?q=ord_1041");
  await expect(page.getByRole("heading", { name: "Órdenes" })).toBeVisible();
  const row = page.getByTestId("orders-table").locator("tbody tr").first();
  expect(text(await row.locator('[data-column="amount"]').innerText())).toBe("$ 25.000,00");
  await expect(row.locator("[data-status]")).toHaveText("pagada");
  await expect(row.locator('[data-column="updatedAt"]')).toContainText(/ de \w+ de \d{4}/);
  await expect(page.getByTestId("health-strip")).toContainText("Eventos pendientes");
  await screenshot(page, testInfo, "orders-es-AR");

  await page.getByLabel("Idioma").selectOption("en");
  await page.getByRole("button", { name: "Aplicar" }).click();
  await expect(page.getByRole("heading", { name: "Orders" })).toBeVisible();
  expect(text(await page.getByTestId("orders-table").locator('tbody tr [data-column="amount"]').first().innerText())).toBe("ARS 25,000.00");
  await page.reload();
  await expect(page.getByRole("heading", { name: "Orders" })).toBeVisible();

  await page.getByLabel("Language").selectOption("es-AR");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByRole("heading", { name: "Órdenes" })).toBeVisible();
});

test("the timeline and the dead letters page speak Spanish too", async ({ page }) => {
  await page.goto("/orders/ord_1045");
  await expect(page.getByRole("heading", { name: "Orden ord_1045" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Línea de tiempo" })).toBeVisible();
  await expect(page.getByTestId("timeline")).toContainText("retenido");
  await page.goto("/dead-letters?tab=resolved");
  await expect(page.getByRole("heading", { name: "Eventos retenidos" })).toBeVisible();
});
