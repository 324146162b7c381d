// Endpoints stored as data on the Endpoints page (admins): an endpoint of each provider created from
// its form, a secret Acredita makes shown once and gone after a reload, a rotation whose new secret
// verifies while the old one is refused, a refused retire, disable (503) and delete (404); never a typed
// secret in the HTML or the RSC payload; es-AR; support does not see the section.
import { expect, test, type Page } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import Stripe from "stripe";
import { createOrder } from "./support/api";
import { query } from "./support/database";
import { screenshot, storageStateOf } from "./support/roles";

const STRIPE_SECRET = "whsec_browser_data_endpoint_0001";
const YOLFI_SECRET = "yolfi_browser_data_endpoint_0001";

/** Fills and submits the create form; returns the new endpoint's id and the secret shown, if any. */
async function createEndpoint(page: Page, fields: { provider: string; account: string; secret?: string; livemode?: "live" | "test" }, created = "Endpoint"): Promise<{ id: string; secret?: string }> {
  const form = page.getByTestId("create-endpoint");
  await form.locator("#de-provider").selectOption(fields.provider);
  await form.locator("#de-account").fill(fields.account);
  if (fields.livemode) await form.locator("#de-livemode").selectOption(fields.livemode);
  if (fields.secret) await form.locator("#de-secret").fill(fields.secret);
  const status = form.getByRole("status");
  // The previous answer stays until this one arrives: wait for another text, then for this one's.
  const before = (await status.textContent()) ?? "";
  await form.getByRole("button").click();
  await expect(status).not.toHaveText(before);
  await expect(status).toContainText(new RegExp(`${created} ep_[a-z0-9]{20}`));
  const id = /ep_[a-z0-9]{20}/.exec((await status.textContent()) ?? "")![0];
  await expect(page.locator(`[data-testid="data-endpoint"][data-endpoint="${id}"]`)).toBeVisible();
  const shown = form.getByTestId("generated-secret");
  return { id, secret: (await shown.count()) > 0 ? ((await shown.textContent()) ?? undefined) : undefined };
}

const card = (page: Page, id: string) => page.locator(`[data-testid="data-endpoint"][data-endpoint="${id}"]`);

function standardWebhooksDelivery(secret: string, id: string, orderId: string) {
  const body = JSON.stringify({ type: "payment.succeeded", timestamp: "2026-12-01T12:00:00Z", data: { payment_id: `pay_${id}`, order_id: orderId, amount: 4500, currency: "EUR" } });
  const signature = new Webhook(secret).sign(id, new Date(), body);
  return { data: body, headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": signature } };
}

test.describe("as an admin, in English", () => {
  test.use({ storageState: storageStateOf("admin") });

  test("create an endpoint of each provider, see a generated secret once, rotate, retire, disable, delete", async ({ page, request }, testInfo) => {
    await createOrder(request, "ord_e2e_de_sw", 4500, "EUR");
    await page.goto("/endpoints");
    await expect(page.getByRole("heading", { level: 2, name: "Endpoints stored as data" })).toBeVisible();

    // Stripe needs the provider's secret: without one the browser refuses the form; with one it is created and the secret is not shown.
    await page.locator("#de-provider").selectOption("stripe");
    await expect(page.locator("#de-secret")).toHaveAttribute("required", "");
    await expect(page.getByText("The endpoint's signing secret (whsec_…) that Stripe shows")).toBeVisible();
    const stripe = await createEndpoint(page, { provider: "stripe", account: "acct_e2ebrowser1", secret: STRIPE_SECRET });
    expect(stripe.secret).toBeUndefined();
    await expect(page.locator("#de-account")).toHaveValue("");
    // A Stripe account that is not an acct_ id is refused in words, and what was typed stays.
    await page.locator("#de-account").fill("merchant_1");
    await page.locator("#de-secret").fill(STRIPE_SECRET);
    await page.getByTestId("create-endpoint").getByRole("button").click();
    await expect(page.getByTestId("create-endpoint").getByRole("status")).toHaveText("A Stripe account is its id: acct_ followed by letters and digits.");
    await expect(page.locator("#de-account")).toHaveValue("merchant_1");
    const yolfi = await createEndpoint(page, { provider: "yolfi", account: "org_e2e_browser", secret: YOLFI_SECRET, livemode: "test" });
    expect(yolfi.secret).toBeUndefined();
    await expect(card(page, yolfi.id).locator(".badge").nth(1)).toHaveText("test");

    // Standard Webhooks: the field-mapping box appears; left empty, the default mapping; the secret is made and shown once.
    await page.locator("#de-provider").selectOption("standard-webhooks");
    await expect(page.getByLabel("Field mapping (JSON, optional)")).toBeVisible();
    const sw = await createEndpoint(page, { provider: "standard-webhooks", account: "sw-e2e-sender" });
    expect(sw.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    await expect(page.getByTestId("generated-secret-notice")).toContainText("it is shown only this once");
    await screenshot(page, testInfo, "data-endpoints-generated-secret");
    const lab = await createEndpoint(page, { provider: "lab", account: "lab-e2e" });
    expect(lab.secret).toMatch(/^[0-9a-f]{64}$/);

    // The generated secret verifies a delivery; after a reload it is nowhere on the page.
    const paid = await request.post(`/api/webhooks/${sw.id}`, standardWebhooksDelivery(sw.secret!, "msg_e2e_de_1", "ord_e2e_de_sw"));
    expect(paid.status()).toBe(200);
    await page.reload();
    await expect(card(page, sw.id).locator('tr[data-label="secret-1"]')).toHaveAttribute("data-state", "active");
    expect(await page.content()).not.toContain(sw.secret!);

    // Rotate with no overlap: the new secret is shown once; the old one is refused (401), the new one verifies.
    const rotate = card(page, sw.id).getByTestId("rotate-secret");
    await rotate.getByLabel("Previous secrets keep verifying for (seconds)").fill("0");
    await rotate.getByRole("button", { name: "Rotate" }).click();
    await expect(rotate.getByRole("status")).toHaveText(/^New secret secret-2; the previous ones verify until \w{3} \d{1,2}, \d{4}, \d{2}:\d{2}:\d{2} UTC\.$/);
    const next = (await rotate.getByTestId("generated-secret").textContent())!;
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(sw.secret);
    await expect(card(page, sw.id).locator('tr[data-label="secret-1"]')).toHaveAttribute("data-state", "expired");
    expect((await request.post(`/api/webhooks/${sw.id}`, standardWebhooksDelivery(sw.secret!, "msg_e2e_de_2", "ord_e2e_de_sw"))).status()).toBe(401);
    expect((await request.post(`/api/webhooks/${sw.id}`, standardWebhooksDelivery(next, "msg_e2e_de_3", "ord_e2e_de_sw"))).status()).toBe(200);

    // The last active secret of an enabled endpoint cannot be retired; disabled, the endpoint answers 503.
    const stripeCard = card(page, stripe.id);
    await stripeCard.getByTestId("retire-secret").click();
    await expect(stripeCard.locator(".diff-bad")).toHaveText("That is the last active signing secret of an enabled endpoint: rotate a new one in first, or disable the endpoint.");
    await stripeCard.getByTestId("endpoint-status").click();
    await expect(stripeCard).toHaveAttribute("data-status", "disabled");
    const body = JSON.stringify({ id: "evt_e2e_de_off", object: "event", type: "customer.created", created: 1764400000, livemode: true, data: { object: { id: "cus_1", object: "customer" } } });
    const header = new Stripe("sk_test_dummy").webhooks.generateTestHeaderString({ payload: body, secret: STRIPE_SECRET });
    const refused = await request.post(`/api/webhooks/${stripe.id}`, { data: body, headers: { "content-type": "application/json", "stripe-signature": header } });
    expect([refused.status(), refused.headers()["retry-after"]]).toEqual([503, "600"]);

    // Delete asks for the confirmation box; then the card is gone and the URL answers 404.
    const remove = card(page, lab.id).getByTestId("delete-endpoint");
    await remove.getByLabel("Its URL will answer 404").check();
    await remove.getByRole("button", { name: "Delete" }).click();
    await expect(card(page, lab.id)).toHaveCount(0);
    expect((await request.post(`/api/webhooks/${lab.id}`, { data: "{}", headers: { "content-type": "application/json" } })).status()).toBe(404);
    await screenshot(page, testInfo, "data-endpoints");

    // No typed secret in the HTML or the RSC payload of the page.
    const html = await (await page.request.get("/endpoints")).text();
    const flight = await (await page.request.get("/endpoints", { headers: { RSC: "1" } })).text();
    expect(html).toContain(stripe.id);
    for (const secret of [STRIPE_SECRET, YOLFI_SECRET, sw.secret!, next, lab.secret!]) {
      for (const form of [secret, Buffer.from(secret).toString("base64"), Buffer.from(secret).toString("hex")]) {
        expect(html.includes(form), `a secret in the HTML (${form.slice(0, 8)}…)`).toBe(false);
        expect(flight.includes(form), `a secret in the RSC payload (${form.slice(0, 8)}…)`).toBe(false);
      }
    }
  });
});

test.describe("as an admin, in es-AR", () => {
  test.use({ storageState: storageStateOf("admin"), locale: "es-AR" });

  test("the form, a generated secret shown once and a refusal read in Spanish", async ({ page }, testInfo) => {
    await page.goto("/endpoints");
    await expect(page.getByRole("heading", { level: 2, name: "Endpoints guardados como datos" })).toBeVisible();
    const lab = await createEndpoint(page, { provider: "lab", account: "lab-e2e-es" }, "Se creó el endpoint");
    expect(lab.secret).toMatch(/^[0-9a-f]{64}$/);
    await expect(page.getByTestId("generated-secret-notice")).toContainText("Copiá este secreto de firma ahora");
    await expect(card(page, lab.id).locator('tr[data-label="secret-1"] .badge')).toHaveText("activo");
    await card(page, lab.id).getByTestId("retire-secret").click();
    await expect(card(page, lab.id).locator(".diff-bad")).toHaveText("Es el último secreto de firma activo de un endpoint habilitado: primero rotá uno nuevo, o deshabilitá el endpoint.");
    await card(page, lab.id).getByTestId("endpoint-status").click();
    await expect(card(page, lab.id)).toHaveAttribute("data-status", "disabled");
    await expect(card(page, lab.id).locator("h3 .badge").first()).toHaveText("deshabilitado");
    await expect(card(page, lab.id).getByTestId("endpoint-status")).toHaveText("Habilitar");
    await screenshot(page, testInfo, "data-endpoints-es-AR");
  });
});

test.describe("as support", () => {
  test.use({ storageState: storageStateOf("support") });

  test("the admin's create action, replayed with support's session (a forged Next-Action), is refused and creates nothing", async ({ browser, page }) => {
    const admin = await browser.newContext({ storageState: storageStateOf("admin") });
    const adminPage = await admin.newPage();
    await adminPage.goto("/endpoints");
    await adminPage.locator("#de-provider").selectOption("lab");
    await adminPage.locator("#de-account").fill("lab-forged-by-support");
    const captured = new Promise<{ url: string; headers: Record<string, string>; body: Buffer }>((resolve) => {
      void adminPage.route("**/endpoints", (route) => {
        const request = route.request();
        if (request.method() !== "POST" || !request.headers()["next-action"]) return route.continue();
        resolve({ url: request.url(), headers: request.headers(), body: request.postDataBuffer() ?? Buffer.alloc(0) });
        return route.abort();
      });
    });
    await adminPage.getByTestId("create-endpoint").getByRole("button").click();
    const action = await captured;
    await admin.close();
    // Support's own cookies (this test's context), the admin's action and body, from the dashboard's origin.
    const { cookie: _adminCookie, ...headers } = action.headers;
    const replay = await page.request.post(action.url, { headers, data: action.body, maxRedirects: 0 });
    expect(replay.status()).toBe(200);
    expect(await replay.text()).toContain("Your role does not allow this.");
    expect(query<{ n: number }>("SELECT COUNT(*) AS n FROM Endpoint WHERE account = ?", "lab-forged-by-support")).toEqual([{ n: 0 }]);
  });

  test("the Endpoints page shows the configured endpoints only, no section or form for data endpoints", async ({ page }) => {
    await page.goto("/endpoints");
    await expect(page.getByRole("heading", { level: 1, name: "Endpoints" })).toBeVisible();
    await expect(page.getByTestId("data-endpoints")).toHaveCount(0);
    await expect(page.getByTestId("create-endpoint")).toHaveCount(0);
  });
});
