// The smaller things a merchant notices: amounts sort within a currency, the decision log's provider
// column says something (not "lab / lab"), the header has the same shape for every role, the demo
// users fit the sign-in card, and /api/metrics takes a support or admin session as its text says.
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { ROLES } from "@/lib/auth/roles";
import { DEMO_USERS } from "@/lib/demo/demo-accounts";
import { createOrder } from "./support/api";
import { testOnDemoServer } from "./support/demo-server";
import { E2E } from "./support/e2e-env";
import { screenshot, storageStateOf } from "./support/roles";

const text = (value: string) => value.replace(/\u00a0/g, " ");

test.beforeAll(async ({ request }) => {
  // Two currencies with amounts that interleave: sorting the raw minor units would mix them.
  for (const [id, amount, currency] of [["ord_amt_a", 500_000, "ARS"], ["ord_amt_b", 900, "USD"], ["ord_amt_c", 100, "USD"], ["ord_amt_d", 200, "ARS"], ["ord_amt_e", 50_000, "USD"]] as const) {
    await createOrder(request, id, amount, currency);
  }
});

for (const locale of ["en", "es-AR"] as const) {
  test(`sorting by amount sorts within each currency, currencies A to Z (${locale})`, async ({ browser }, testInfo) => {
    const context = await browser.newContext({ storageState: storageStateOf("merchant"), locale });
    await context.addCookies([{ name: "NEXT_LOCALE", value: locale, url: E2E.baseURL }]);
    const page = await context.newPage();
    await page.goto("/orders?q=ord_amt_&sort=amount&dir=asc");
    const rows = page.getByTestId("orders-table").locator("tbody tr");
    await expect(rows).toHaveCount(5);
    expect(await rows.evaluateAll((list) => list.map((row) => `${row.getAttribute("data-currency")} ${row.getAttribute("data-order-id")}`))).toEqual([
      "ARS ord_amt_d",
      "ARS ord_amt_a",
      "USD ord_amt_c",
      "USD ord_amt_b",
      "USD ord_amt_e",
    ]);
    await expect(page.getByTestId("amount-by-currency")).toHaveText(locale === "en" ? "Amounts are sorted within each currency, currencies A to Z." : "Los importes se ordenan dentro de cada moneda, las monedas de la A a la Z.");
    if (locale === "en") expect(text(await rows.first().locator('[data-column="amount"]').innerText())).toBe("ARS 2.00");
    await screenshot(page, testInfo, `orders-amount-sort-${locale}`);

    await page.goto("/orders?q=ord_amt_&sort=amount&dir=desc");
    await expect(rows).toHaveCount(5);
    expect(await rows.evaluateAll((list) => list.map((row) => row.getAttribute("data-order-id")))).toEqual(["ord_amt_a", "ord_amt_d", "ord_amt_e", "ord_amt_b", "ord_amt_c"]);
    // Another column: no currency note.
    await page.goto("/orders?q=ord_amt_&sort=id&dir=asc");
    await expect(rows).toHaveCount(5);
    await expect(page.getByTestId("amount-by-currency")).toHaveCount(0);
    await context.close();
  });
}

test("the decision log's provider column shows the provider alone when the endpoint has the same name", async ({ browser }, testInfo) => {
  const context = await browser.newContext({ storageState: storageStateOf("support") });
  const page = await context.newPage();
  await page.goto("/decisions?provider=lab");
  const cells = page.getByTestId("decisions-table").getByTestId("decision-provider");
  await expect(cells.first()).toBeVisible();
  const texts = await cells.allInnerTexts();
  expect(texts.length).toBeGreaterThan(0);
  expect([...new Set(texts)]).toEqual(["lab"]);
  await screenshot(page, testInfo, "decisions-provider-column");
  await context.close();
});

test("the header has the same two rows for every role: pages on the first, the account on the second", async ({ browser }, testInfo) => {
  const shapes: Record<string, { header: number; accountTop: number; accountHeight: number; navHeight: number }> = {};
  for (const role of ROLES) {
    const context = await browser.newContext({ storageState: storageStateOf(role), viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    await page.goto("/orders");
    const header = (await page.getByTestId("topbar").boundingBox())!;
    const account = (await page.getByTestId("topbar-account").boundingBox())!;
    const nav = (await page.getByRole("navigation", { name: "Main" }).boundingBox())!;
    shapes[role] = { header: Math.round(header.height), accountTop: Math.round(account.y), accountHeight: Math.round(account.height), navHeight: Math.round(nav.height) };
    await screenshot(page, testInfo, `header-${role}`);
    await context.close();
  }
  // One line each (a wrapped row would be about twice as tall), and the same shape for every role.
  expect(shapes.admin.navHeight).toBeLessThan(50);
  expect(shapes.admin.accountHeight).toBeLessThan(50);
  expect(shapes.merchant).toEqual(shapes.admin);
  expect(shapes.support).toEqual(shapes.admin);
});

test("GET /api/metrics takes the bearer token, or the session of a support or admin user", async () => {
  const anonymous = await playwrightRequest.newContext({ baseURL: E2E.baseURL });
  expect((await anonymous.get("/api/metrics")).status()).toBe(401);
  expect((await anonymous.get("/api/metrics/prometheus")).status()).toBe(401);
  const byToken = await anonymous.get("/api/metrics", { headers: { authorization: `Bearer ${E2E.apiToken}` } });
  expect(byToken.status()).toBe(200);
  await anonymous.dispose();

  const merchant = await playwrightRequest.newContext({ baseURL: E2E.baseURL, storageState: storageStateOf("merchant") });
  const refused = await merchant.get("/api/metrics");
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toEqual({ error: "your role does not allow this", code: "forbidden" });
  await merchant.dispose();

  for (const role of ["support", "admin"] as const) {
    const context = await playwrightRequest.newContext({ baseURL: E2E.baseURL, storageState: storageStateOf(role) });
    const json = await context.get("/api/metrics");
    expect(json.status(), role).toBe(200);
    expect(json.headers()["cache-control"], role).toBe("no-store");
    const body = (await json.json()) as { inbox: { pending: number }; deadLetters: { open: number } };
    expect(typeof body.inbox.pending, role).toBe("number");
    expect(typeof body.deadLetters.open, role).toBe("number");
    const prometheus = await context.get("/api/metrics/prometheus");
    expect(prometheus.status(), role).toBe(200);
    expect(prometheus.headers()["content-type"], role).toMatch(/^text\/plain; version=0\.0\.4/);
    await context.dispose();
  }
});

testOnDemoServer.describe("the demo users on the sign-in page of `npm run demo`", () => {
  for (const [locale, width] of [["en", 1280], ["es-AR", 1280], ["en", 390]] as const) {
    testOnDemoServer(`the table stays inside the card (${locale}, ${width} px wide)`, async ({ browser, demo }, testInfo) => {
      const context = await browser.newContext({ locale, viewport: { width, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${demo.url}/sign-in`);
      const table = page.getByTestId("demo-users");
      await expect(table).toContainText("admin@acredita.test");
      const card = (await page.locator("main.signin").boundingBox())!;
      const box = (await table.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(card.x);
      expect(box.x + box.width).toBeLessThanOrEqual(card.x + card.width);
      // Nothing inside the table is wider than the table itself.
      expect(await table.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
      await screenshot(page, testInfo, `sign-in-demo-users-${locale}-${width}`);
      await context.close();
    });
  }

  testOnDemoServer("the demo's admin is told up front that the demo creates no users, with no form to fill in vain", async ({ browser, demo }, testInfo) => {
    const context = await browser.newContext({ locale: "en" });
    const page = await context.newPage();
    const admin = DEMO_USERS.find((user) => user.role === "admin")!;
    await page.goto(`${demo.url}/sign-in`);
    await page.getByLabel("Email").fill(admin.email);
    await page.getByLabel("Password").fill(admin.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("signed-in-as")).toHaveAttribute("data-role", "admin");
    await page.goto(`${demo.url}/admin/users`);
    await expect(page.getByTestId("users-demo-mode")).toHaveText(/^Demo mode: users are not created here\./);
    await expect(page.locator("#u-email")).toHaveCount(0);
    await expect(page.getByTestId("users-table")).toContainText(admin.email);
    await screenshot(page, testInfo, "users-demo-mode");
    await context.close();
  });
});
