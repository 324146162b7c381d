// Error answers a user or a client meets: a malformed path (400), an order or run that does not exist
// and an unknown page (404, named, inside the dashboard's frame, in both languages), JSON under /api.
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { E2E } from "./support/e2e-env";
import { screenshot, storageStateOf } from "./support/roles";

const bearer = { authorization: `Bearer ${E2E.apiToken}` };

test("under /api a malformed path is a JSON 400 (a webhook delivery: unknown endpoint, 404) and an unknown path a JSON 404, signed in or not", async () => {
  for (const context of [await playwrightRequest.newContext({ baseURL: E2E.baseURL }), await playwrightRequest.newContext({ baseURL: E2E.baseURL, storageState: storageStateOf("admin") })]) {
    for (const path of ["/api/orders/%ZZ", "/api/reconciliations/%ZZ", "/api/orders/ord_1041%E0%A4%A", "/api/%C3%28"]) {
      const response = await context.get(path, { headers: bearer });
      expect(response.status(), path).toBe(400);
      expect(response.headers()["content-type"], path).toBe("application/json");
      expect(await response.json(), path).toEqual({ error: "the path has malformed percent-encoding", code: "malformed_path" });
    }
    // A webhook delivery to an undecodable endpoint name: the unknown-endpoint answer, as the standalone receiver gives.
    const post = await context.post("/api/webhooks/%ZZ", { data: "{}", headers: { "content-type": "application/json" } });
    expect(post.status()).toBe(404);
    expect(await post.json()).toEqual({ outcome: "rejected", reason: "unknown webhook endpoint" });
    for (const path of ["/api/nope", "/api/orders/ord_1041/extra", "/api/webhooks/lab/extra"]) {
      const response = await context.get(path, { headers: bearer });
      expect(response.status(), path).toBe(404);
      expect(response.headers()["content-type"], path).toBe("application/json");
      expect(await response.json(), path).toEqual({ error: "no API route at this path", code: "not_found" });
    }
    const missingOrder = await context.get("/api/orders/ord_x", { headers: bearer });
    expect(missingOrder.status()).toBe(404);
    expect(await missingOrder.json()).toEqual({ error: "order ord_x not found", code: "not_found" });
    await context.dispose();
  }
});

test("dashboard pages: 400 for a malformed path, 404 for a missing order, run or page (HTTP status and HTML)", async () => {
  const context = await playwrightRequest.newContext({ baseURL: E2E.baseURL, storageState: storageStateOf("merchant") });
  const expectations: [string, number, string][] = [
    ["/orders/ord_x", 404, "Order not found"],
    ["/reconciliation/run_x", 404, "Reconciliation run not found"],
    ["/no-such-page", 404, "Page not found"],
    ["/orders/ord_1041/extra", 404, "Page not found"],
  ];
  for (const [path, status, title] of expectations) {
    const response = await context.get(path, { maxRedirects: 0 });
    expect(response.status(), path).toBe(status);
    expect(response.headers()["content-type"], path).toBe("text/html; charset=utf-8");
    // A 404 document carries the page in Next's flight data (the browser spec below checks the drawn page).
    const html = await response.text();
    expect(html, path).toContain(`\\"id\\":\\"problem-h\\",\\"children\\":\\"${title}\\"`);
    expect(html, path).toContain('<meta name="robots" content="noindex"/>');
  }
  await context.dispose();
});

test("a dashboard path with malformed percent-encoding is a 400 page, signed in or not, in the reader's language", async () => {
  for (const storageState of [undefined, storageStateOf("merchant")]) {
    const context = await playwrightRequest.newContext({ baseURL: E2E.baseURL, storageState });
    for (const path of ["/orders/%ZZ", "/dead-letters/%E0%A4%A", "/%C3%28", "/orders/%3Cscript%3E%ZZ"]) {
      const response = await context.get(path, { maxRedirects: 0 });
      expect(response.status(), path).toBe(400);
      expect(response.headers()["content-type"], path).toBe("text/html; charset=utf-8");
      const html = await response.text();
      expect(html, path).toContain('<h1 id="problem-h">Malformed address</h1>');
      expect(html, path).toContain(`<p class="mono" data-testid="malformed-path">${path}</p>`);
    }
    const spanish = await context.get("/orders/%ZZ", { headers: { "accept-language": "es-AR,es;q=0.9" } });
    expect(spanish.status()).toBe(400);
    expect(await spanish.text()).toContain('<h1 id="problem-h">Dirección mal formada</h1>');
    await context.dispose();
  }
});

test("signed out, a missing dashboard page goes to sign-in first and comes back to it", async () => {
  const context = await playwrightRequest.newContext({ baseURL: E2E.baseURL });
  for (const [path, next] of [["/no-such-page", "%2Fno-such-page"], ["/orders/ord_x", "%2Forders%2Ford_x"]]) {
    const response = await context.get(path, { maxRedirects: 0 });
    expect(response.status(), path).toBe(307);
    expect(response.headers().location, path).toBe(`/sign-in?next=${next}`);
  }
  await context.dispose();
});

for (const locale of ["en", "es-AR"] as const) {
  const words = {
    en: { order: "Order not found", orderText: "No order has the id ord_x.", page: "Page not found", pageText: "There is no page at /no-such-page.", malformed: "Malformed address", back: "Go to orders" },
    "es-AR": { order: "Orden no encontrada", orderText: "Ninguna orden tiene el id ord_x.", page: "Página no encontrada", pageText: "No hay ninguna página en /no-such-page.", malformed: "Dirección mal formada", back: "Ir a órdenes" },
  }[locale];

  test(`the error pages in ${locale}: styled, inside the frame, naming what was asked for`, async ({ browser }, testInfo) => {
    const context = await browser.newContext({ storageState: storageStateOf("support"), locale });
    await context.addCookies([{ name: "NEXT_LOCALE", value: locale, url: E2E.baseURL }]);
    const page = await context.newPage();

    const order = await page.goto("/orders/ord_x");
    expect(order?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(words.order);
    await expect(page.getByTestId("problem")).toContainText(words.orderText);
    await expect(page.getByTestId("missing-id")).toHaveText("ord_x");
    await expect(page.getByTestId("signed-in-as")).toHaveAttribute("data-role", "support");
    await screenshot(page, testInfo, `error-order-not-found-${locale}`);

    const unknown = await page.goto("/no-such-page");
    expect(unknown?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(words.page);
    await expect(page.getByTestId("problem")).toContainText(words.pageText);
    await screenshot(page, testInfo, `error-page-not-found-${locale}`);

    const malformed = await page.goto("/orders/%ZZ");
    expect(malformed?.status()).toBe(400);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(words.malformed);
    await expect(page.getByTestId("problem")).toHaveAttribute("data-code", "400");
    await expect(page.getByTestId("malformed-path")).toHaveText("/orders/%ZZ");
    await screenshot(page, testInfo, `error-malformed-${locale}`);

    await page.getByRole("link", { name: words.back }).click();
    await expect(page).toHaveURL(/\/orders$/);
    await context.close();
  });
}
