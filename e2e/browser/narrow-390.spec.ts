// A phone's width (390 px): the header is compact, the demo banner does not fill the first screen, and
// wide tables scroll sideways inside their container while the page keeps its width.
import { expect, test, type Page } from "@playwright/test";
import { DEMO_USERS } from "@/lib/demo/demo-accounts";
import { testOnDemoServer } from "./support/demo-server";
import { createOrder, deliverLab } from "./support/api";
import { screenshot, storageStateOf } from "./support/roles";

const PHONE = { width: 390, height: 844 };

/** How the first screen is spent: the header's and the demo banner's bottom edges, the page's width and the main heading's top. */
async function firstScreen(page: Page) {
  return page.evaluate(() => {
    const bottom = (selector: string) => document.querySelector(selector)?.getBoundingClientRect().bottom ?? 0;
    return {
      header: Math.round(bottom('[data-testid="topbar"]')),
      banner: Math.round(bottom('[data-testid="demo-banner"]')),
      pageWidth: document.documentElement.scrollWidth,
      headingTop: Math.round(document.querySelector("main h1")?.getBoundingClientRect().top ?? 9999),
    };
  });
}

/** The table's container: whether it scrolls sideways by itself, and how much wider its table is. */
async function tableScroll(page: Page, testId: string) {
  return page.getByTestId(testId).evaluate((table) => {
    const wrap = table.closest(".table-wrap") as HTMLElement;
    return { overflowX: getComputedStyle(wrap).overflowX, wider: wrap.scrollWidth > wrap.clientWidth, insidePage: wrap.getBoundingClientRect().right <= document.documentElement.clientWidth };
  });
}

test.describe("at 390 px", () => {
  test.use({ storageState: storageStateOf("support"), viewport: PHONE });

  test("a compact header, the page keeps its width, and the orders and dead-letters tables scroll inside their container", async ({ page, request }, testInfo) => {
    await createOrder(request, "ord_narrow_1", 100_000);
    expect((await deliverLab(request, { id: "evt_narrow_1", type: "payment.refunded", orderId: "ord_narrow_1", paymentId: "pay_narrow_1", amount: 100_000 })).status).toBe(409);

    await page.goto("/orders");
    const orders = await firstScreen(page);
    expect(orders.pageWidth).toBe(PHONE.width);
    // Two short rows (pages, then account), not the seven wrapped rows of before.
    expect(orders.header).toBeLessThanOrEqual(80);
    expect(orders.headingTop).toBeLessThan(PHONE.height / 4);
    // Polled: the rows stream in after the page's first paint, and an empty table is not wider than its box.
    await expect.poll(() => tableScroll(page, "orders-table")).toEqual({ overflowX: "auto", wider: true, insidePage: true });
    // Every page is still one tap away: the navigation scrolls sideways within its row.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Dead letters" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Dead letters" })).toBeVisible();
    expect((await firstScreen(page)).pageWidth).toBe(PHONE.width);
    await expect.poll(() => tableScroll(page, "dead-letters-table")).toEqual({ overflowX: "auto", wider: true, insidePage: true });
    await screenshot(page, testInfo, "narrow-390-dead-letters");
  });
});

testOnDemoServer.describe("at 390 px in demo mode", () => {
  testOnDemoServer("the demo banner is one short warning, and the page's heading is on the first screen (English and es-AR)", async ({ browser, demo: { url } }, testInfo) => {
    for (const [locale, warning, heading] of [
      ["en-US", "DEMO MODE: public secrets and passwords. Never for real traffic.", "Orders"],
      ["es-AR", "MODO DEMO: secretos y contraseñas públicos. Nunca con tráfico real.", "Órdenes"],
    ] as const) {
      const context = await browser.newContext({ baseURL: url, viewport: PHONE, locale });
      const page = await context.newPage();
      const support = DEMO_USERS.find((user) => user.role === "support")!;
      // Signed in through the auth API (the form is the sign-in spec's subject); the cookie is the context's.
      expect((await page.request.post("/api/auth/sign-in/email", { data: { email: support.email, password: support.password }, headers: { origin: url } })).status()).toBe(200);
      await page.goto("/orders");
      await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
      // What is shown (innerText leaves out the long sentence, hidden at this width).
      expect(await page.getByTestId("demo-banner").innerText()).toBe(warning);
      const screen = await firstScreen(page);
      expect(screen.pageWidth).toBe(PHONE.width);
      // Header and banner together take well under a third of the first screen.
      expect(screen.banner).toBeLessThanOrEqual(130);
      expect(screen.headingTop).toBeLessThan(PHONE.height / 3);
      await screenshot(page, testInfo, `narrow-390-demo-${locale}`);
      await context.close();
    }
  });
});
