// Deep links survive sign-in: a signed-out visitor is sent to /sign-in?next=<the page> and comes back to
// it, query included. `next` is followed only to a path on this site: every open-redirect spelling
// (other hosts, protocol-relative, backslashes, javascript:, encoded CR/LF and tabs) lands on /orders.
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { createOrder, deliverLab } from "./support/api";
import { E2E } from "./support/e2e-env";
import { demoUser, screenshot, storageStateOf } from "./support/roles";

const DEEP_LINK = "/orders?status=paid&currency=USD&sort=amount&dir=asc";

/** Values of `next` as an attacker would put them in the query (already percent-encoded where shown). */
const ATTACKS = [
  "%2F%2Fevil.example",
  "//evil.example",
  "///evil.example",
  "/%5Cevil.example",
  "%5C%5Cevil.example",
  "/%09/evil.example",
  "/%0D%0A/evil.example",
  "/%0D%0ALocation:%20https://evil.example",
  "https://evil.example",
  "https:%2F%2Fevil.example",
  "HTTPS://evil.example/orders",
  "%252F%252Fevil.example",
  "javascript:alert(1)",
  "JaVaScRiPt%3Aalert(document.cookie)",
  "data:text/html,%3Cscript%3Ealert(1)%3C/script%3E",
  "evil.example",
  "/.//evil.example",
  "%20//evil.example",
  // Trailing slashes, a raw backslash, a lower-case encoded LF and a longer javascript: URL.
  "%2F%2Fevil.example%2F",
  "/%09/evil.example/",
  "/%5C/evil.example/",
  "%2F%5Cevil.example%2F",
  "/%0a/evil.example/",
  "https%3A%2F%2Fevil.example%2F",
  "javascript%3Aalert(document.domain)",
];

test.beforeAll(async ({ request }) => {
  // One paid USD order, so the deep link's currency filter has its option.
  await createOrder(request, "ord_deep_usd", 4_200, "USD");
  const answer = await deliverLab(request, { id: "evt_deep_usd", type: "payment.approved", orderId: "ord_deep_usd", paymentId: "pay_deep_usd", amount: 4_200, currency: "USD" });
  expect(["applied", "duplicate"]).toContain(answer.outcome);
});

test("signed out, a filtered orders link goes to sign-in and, after signing in, back to the same filters", async ({ browser }, testInfo) => {
  const context = await browser.newContext({ extraHTTPHeaders: { "x-forwarded-for": "203.0.113.100" } });
  const page = await context.newPage();
  await page.goto(DEEP_LINK);
  await expect(page).toHaveURL(`${E2E.baseURL}/sign-in?next=${encodeURIComponent(DEEP_LINK)}`);
  await page.getByLabel("Email").fill(demoUser("merchant").email);
  await page.getByLabel("Password").fill(demoUser("merchant").password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${E2E.baseURL}${DEEP_LINK}`);
  await expect(page.getByTestId("signed-in-as")).toHaveAttribute("data-role", "merchant");
  await expect(page.locator("#f-status")).toHaveValue("paid");
  await expect(page.locator("#f-currency")).toHaveValue("USD");
  await screenshot(page, testInfo, "deep-link-after-sign-in");
  await context.close();
});

test("an order's page and the decision log with filters come back after sign-in too (server redirect)", async () => {
  const anonymous = await playwrightRequest.newContext({ baseURL: E2E.baseURL });
  for (const path of ["/orders/ord_1041", "/decisions?outcome=rejected&page=2", "/dead-letters?status=open"]) {
    const response = await anonymous.get(path, { maxRedirects: 0 });
    expect(response.status(), path).toBe(307);
    expect(response.headers().location, path).toBe(`/sign-in?next=${encodeURIComponent(path)}`);
  }
  await anonymous.dispose();
  const merchant = await playwrightRequest.newContext({ baseURL: E2E.baseURL, storageState: storageStateOf("merchant") });
  // Signed in, /sign-in?next= sends the user straight on (307): the same check the form's redirect uses.
  const back = await merchant.get(`/sign-in?next=${encodeURIComponent("/decisions?outcome=rejected&page=2")}`, { maxRedirects: 0 });
  expect(back.status()).toBe(307);
  expect(back.headers().location).toBe("/decisions?outcome=rejected&page=2");
  await merchant.dispose();
});

test("every open-redirect attempt in `next` falls back to /orders (HTTP Location, exactly)", async () => {
  const merchant = await playwrightRequest.newContext({ baseURL: E2E.baseURL, storageState: storageStateOf("merchant") });
  for (const attack of ATTACKS) {
    const response = await merchant.get(`/sign-in?next=${attack}`, { maxRedirects: 0 });
    expect(response.status(), attack).toBe(307);
    expect(response.headers().location, attack).toBe("/orders");
  }
  // Encoded slashes inside one segment stay a path on this site (a 404 page here), never a host.
  const encoded = await merchant.get(`/sign-in?next=${encodeURIComponent("/%2F%2Fevil.example")}`, { maxRedirects: 0 });
  expect(encoded.headers().location).toBe("/%2F%2Fevil.example");
  await merchant.dispose();
});

test("through the sign-in form, an attacker's `next` ends on this site's /orders, the tab trick too; no request leaves the site", async ({ browser }) => {
  // Through the form the browser follows `next` itself after the sign-in request: a browser drops a tab
  // from a URL, so "/\t/evil.example/" would become "//evil.example/" there (the tab trick).
  for (const [ip, formAttack] of [["203.0.113.101", "//evil.example"], ["203.0.113.90", "/%09/evil.example/"]] as const) {
    const context = await browser.newContext({ extraHTTPHeaders: { "x-forwarded-for": ip } });
    const page = await context.newPage();
    const left: string[] = [];
    await context.route((url) => url.hostname.endsWith("evil.example"), (route) => {
      left.push(route.request().url());
      return route.abort();
    });
    const requested: string[] = [];
    page.on("request", (request) => requested.push(new URL(request.url()).host));
    // Signed in by the first, the others are the signed-in redirect, followed by the browser.
    for (const attack of [formAttack, "/%5Cevil.example", "javascript:alert(1)", "/%0D%0A/evil.example"]) {
      await page.goto(`/sign-in?next=${attack}`);
      if (page.url().startsWith(`${E2E.baseURL}/sign-in`)) {
        await page.getByLabel("Email").fill(demoUser("support").email);
        await page.getByLabel("Password").fill(demoUser("support").password);
        await page.getByRole("button", { name: "Sign in" }).click();
      }
      await expect(page).toHaveURL(`${E2E.baseURL}/orders`);
      await expect(page.getByTestId("signed-in-as")).toHaveAttribute("data-role", "support");
    }
    expect(requested.filter((host) => host !== new URL(E2E.baseURL).host)).toEqual([]);
    expect(left).toEqual([]);
    await context.close();
  }
});
