// A Stripe endpoint's API access on the Endpoints page (admins): the API key typed once into a password
// field, saved encrypted and shown only as when it was set (never in the HTML or the RSC payload); the
// backfill button queues a backfill that the server's worker runs against a fake of Stripe's API (the
// servers' STRIPE_API_BASE), and the page follows it until its counts show; the missed payments are
// credited. Removing the key removes the button. es-AR reads the same section in Spanish.
import path from "node:path";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { startFakeStripeApi, type FakeStripeApi } from "@/e2e/support/fake-stripe-api";
import { paymentIntent, stripeEvent } from "@/e2e/support/stripe-objects";
import { createOrder } from "./support/api";
import { E2E } from "./support/e2e-env";
import { storageStateOf } from "./support/roles";

const API_KEY = "rk_live_E2eBrowserBackfill0123456789";
const bearer = { authorization: `Bearer ${E2E.apiToken}` };
let api: FakeStripeApi;

test.beforeAll(async () => {
  api = await startFakeStripeApi(API_KEY, { port: E2E.stripeApiPort });
});
test.afterAll(async () => {
  await api.close();
});

/** A live Stripe endpoint made over the API (the Endpoints spec proves the form), inline, on its own account. */
async function stripeEndpoint(request: APIRequestContext, account: string): Promise<string> {
  const created = await request.post("/api/endpoints", { headers: bearer, data: { provider: "stripe", account, livemode: true, processingMode: "inline", secret: `whsec_${account}_0001` } });
  expect(created.status(), await created.text()).toBe(201);
  return (await created.json()).id as string;
}

const card = (page: Page, id: string) => page.locator(`[data-testid="data-endpoint"][data-endpoint="${id}"]`);

test.describe("as an admin, in English", () => {
  test.use({ storageState: storageStateOf("admin") });

  test("save an API key (never shown again), backfill the last 72 h and see its counts; the missed payments are credited", async ({ page, request }, testInfo) => {
    const id = await stripeEndpoint(request, "acct_e2ebackfill1");
    for (const [index, amount] of [1_500, 2_500, 3_500].entries()) await createOrder(request, `ord_e2e_bf_${index}`, amount, "USD");
    const created = Math.floor(Date.now() / 1000) - 3_600;
    api.events = [1_500, 2_500, 3_500].map((amount, index) => stripeEvent(`evt_e2e_bf_${index}`, "payment_intent.succeeded", paymentIntent({ id: `pi_e2e_bf_${index}`, orderId: `ord_e2e_bf_${index}`, amount, currency: "usd" }), { created: created + index }));

    const payloads: string[] = [];
    page.on("response", async (response) => {
      if (response.url().startsWith(E2E.baseURL)) payloads.push(await response.text().catch(() => ""));
    });
    await page.goto("/endpoints");
    const access = card(page, id).getByTestId("api-access");
    await expect(access.getByTestId("api-key-state")).toHaveText(/^No API key: backfills/);
    await expect(access.getByTestId("backfill")).toHaveCount(0);

    // A test key on a live endpoint is refused in words; the right one is saved and the field emptied.
    await access.getByLabel("Restricted API key").fill("rk_test_E2eBrowserBackfill0123456789");
    await access.getByRole("button", { name: "Save API key" }).click();
    await expect(access.getByTestId("api-key-form").getByRole("status")).toHaveText("That key is of the other mode (live or test) than the endpoint: it could only list the other mode's events.");
    await access.getByLabel("Restricted API key").fill(API_KEY);
    await access.getByRole("button", { name: "Save API key" }).click();
    await expect(access.getByTestId("api-key-form").getByRole("status")).toHaveText("API key saved, encrypted: it is not shown again.");
    await expect(access.getByLabel("Restricted API key")).toHaveValue("");
    await expect(access.getByTestId("api-key-state")).toHaveText(/^API key set .+ UTC; it is never shown again\.$/);
    await expect(access.getByTestId("backfill-state")).toHaveText("No backfill asked for yet.");

    await access.getByTestId("backfill").click();
    await expect(access.getByRole("status").last()).toHaveText("Backfill queued: a worker lists Stripe's events of the last 72 h and stores the missing ones.");
    // The worker looks every 2 s; the page reads itself again while the backfill is queued or running.
    await expect(access.getByTestId("backfill-state")).toHaveAttribute("data-status", "done", { timeout: 20_000 });
    await expect(access.getByTestId("backfill-state")).toHaveText(/^Last backfill .+ ago: 3 listed, 0 already stored, 3 stored, 0 skipped\.$/);
    if (process.env.E2E_SCREENSHOTS !== "0") await card(page, id).screenshot({ path: path.join(testInfo.project.outputDir, "screenshots", "endpoint-backfill-done.png") });
    expect(api.requests.filter((sent) => sent.path.startsWith("/v1/events")).every((sent) => sent.keyStart === API_KEY.slice(0, 8))).toBe(true);

    for (const [index, amount] of [1_500, 2_500, 3_500].entries()) {
      const order = await request.get(`/api/orders/ord_e2e_bf_${index}`, { headers: bearer });
      expect([(await order.json()).status, (await order.json()).credited]).toEqual(["paid", amount]);
    }
    // The key never reached a page, an RSC payload or an action's answer.
    await page.reload();
    expect(payloads.length).toBeGreaterThan(3);
    for (const payload of payloads) expect(payload).not.toContain("E2eBrowserBackfill0123456789");

    await access.getByTestId("api-key-remove").click();
    await expect(access.getByTestId("api-key-state")).toHaveText(/^No API key: backfills/);
    await expect(access.getByTestId("backfill")).toHaveCount(0);
  });
});

test.describe("as an admin, in es-AR", () => {
  test.use({ storageState: storageStateOf("admin"), locale: "es-AR" });

  test("the API access section and a refused key, in Spanish", async ({ page, request }, testInfo) => {
    const id = await stripeEndpoint(request, "acct_e2ebackfill2");
    await page.goto("/endpoints");
    const access = card(page, id).getByTestId("api-access");
    await expect(access.getByRole("heading", { name: "Acceso a la API de Stripe" })).toBeVisible();
    await expect(access.getByTestId("api-key-state")).toHaveText(/^Sin clave de API: /);
    await access.getByLabel("Clave de API restringida").fill("not_a_stripe_key_at_all");
    await access.getByRole("button", { name: "Guardar clave de API" }).click();
    await expect(access.getByTestId("api-key-form").getByRole("status")).toHaveText("Eso no es una clave secreta o restringida de Stripe (rk_live_…, rk_test_…, sk_live_…, sk_test_…).");
    if (process.env.E2E_SCREENSHOTS !== "0") await card(page, id).screenshot({ path: path.join(testInfo.project.outputDir, "screenshots", "endpoint-backfill-es-ar.png") });
  });
});
