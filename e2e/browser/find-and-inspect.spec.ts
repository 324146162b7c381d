// Finding a payment and inspecting its events as a support agent does with a customer on the phone: an
// order found by a payment id and by the customer's e-mail, an event opened from the order's timeline
// (payload, header names, decisions, ledger), the same in es-AR, what a merchant is not shown, and the
// CSV buttons. Seeds its own orders under ids no other spec uses (fnd_...), so it runs beside them.
import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import Stripe from "stripe";
import { DEMO_ACCOUNTS, DEMO_ENDPOINT_SECRETS } from "@/lib/endpoints/endpoints";
import { DEMO_USERS } from "@/lib/demo/demo-accounts";
import { DEMO_SECRETS } from "@/lib/config/settings";
import { createOrder, deliverLab } from "./support/api";
import { testOnDemoServer } from "./support/demo-server";
import { screenshot, storageStateOf } from "./support/roles";

const text = (value: string) => value.replace(/[\u00a0\u202f]/g, " ");

/** Seeds an order paid by one lab event; returns nothing (the ids are the caller's). */
async function paidLabOrder(request: Parameters<typeof createOrder>[0], orderId: string, eventId: string, paymentId: string, amount: number): Promise<void> {
  await createOrder(request, orderId, amount);
  const answer = await deliverLab(request, { id: eventId, type: "payment.approved", orderId, paymentId, amount });
  expect(answer.outcome, answer.reason).toBe("applied");
}

async function search(page: Page, label: string, value: string): Promise<void> {
  await page.getByLabel(label).fill(value);
  await page.getByLabel(label).press("Enter");
  await expect(page).toHaveURL(new RegExp(`[?&]q=${encodeURIComponent(value).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
}

test.describe("as support, in English", () => {
  test.use({ storageState: storageStateOf("support") });

  test("finds an order by a payment id, opens an event from its timeline, and exports what it found", async ({ page, request }, testInfo) => {
    await paidLabOrder(request, "fnd_ord_pay", "fnd_evt_pay", "fnd_pay_7731", 120_000);
    await page.goto("/orders");
    await search(page, "Search orders", "fnd_pay_7731");
    const rows = page.getByTestId("orders-table").locator("tbody tr");
    await expect(rows).toHaveCount(1);
    await expect(rows.first().locator('[data-column="id"] a')).toHaveText("fnd_ord_pay");
    await expect(rows.first().getByTestId("matched-by")).toHaveText("Found by payment id");
    await screenshot(page, testInfo, "orders-search-payment-id");

    // The CSV button exports what the filters match: this one order.
    const download = page.waitForEvent("download");
    await page.getByTestId("export-orders").click();
    const file = await (await download).path();
    const csv = readFileSync(file, "utf8").split("\r\n");
    expect(csv[0]).toBe("order_id,status,currency,amount,credited,refunded,disputed,difference,open_dead_letters,open_extra_charges,livemode,checkout_session_id,created_at,updated_at,last_event_at");
    expect(csv.slice(1, -1).map((line) => line.split(",").slice(0, 5).join(","))).toEqual(["fnd_ord_pay,paid,ARS,1200.00,1200.00"]);

    await rows.first().locator('[data-column="id"] a').click();
    await expect(page.getByRole("heading", { name: "Order fnd_ord_pay" })).toBeVisible();
    await page.getByTestId("timeline").locator('tr[data-event-id="fnd_evt_pay"]').getByTestId("event-link").click();
    await expect(page).toHaveURL(/\/events\/[^/?]+$/);
    await expect(page.getByRole("heading", { level: 1, name: "Event fnd_evt_pay" })).toBeVisible();
    await expect(page.getByTestId("event-endpoint")).toHaveText("lab (live, account lab)");
    await expect(page.getByTestId("event-secret-label")).toHaveText("LAB_WEBHOOK_SECRET[0]");
    // The payload pretty-printed, never the raw body or its signature.
    const payload = page.getByTestId("payload");
    await expect(payload).toHaveAttribute("data-state", "kept");
    await expect(payload).toContainText('  "effect": {\n    "kind": "payment",\n    "paymentKey": "fnd_pay_7731",');
    await expect(page.getByTestId("headers").locator('[data-header="lab-signature"]')).toHaveText("lab-signature signature");
    const decisions = page.getByTestId("event-decisions").locator("tbody tr");
    await expect(decisions).toHaveCount(1);
    await expect(decisions.first().getByTestId("reason")).toHaveText(/^credited ARS\s1,200\.00; order fnd_ord_pay created → paid$/);
    await expect(page.getByTestId("event-ledger")).toContainText("credit:lab:lab:live:fnd_pay_7731");
    await expect(page.getByTestId("event-delivery")).toContainText("fnd_ord_pay");
    await screenshot(page, testInfo, "event-page");
  });
});

test.describe("as a merchant", () => {
  test.use({ storageState: storageStateOf("merchant") });

  test("the event page shows what happened but not the payload, which is personal data", async ({ page, request }, testInfo) => {
    await paidLabOrder(request, "fnd_ord_merchant", "fnd_evt_merchant", "fnd_pay_merchant", 5_000);
    // The decision log's link goes through the lookup, which opens the one stored event with this id.
    await page.goto("/decisions?eventId=fnd_evt_merchant");
    await page.getByTestId("decisions-table").getByTestId("event-link").first().click();
    await expect(page).toHaveURL(/\/events\/[^/?]+$/);
    await expect(page.getByTestId("payload")).toHaveAttribute("data-state", "hidden");
    await expect(page.getByTestId("payload")).toHaveText("Your role does not show payloads or customers' e-mails (support and admin see them).");
    await expect(page.getByText("fnd_pay_merchant\",")).toHaveCount(0);
    await expect(page.getByTestId("event-decisions").locator("tbody tr")).toHaveCount(1);
    await screenshot(page, testInfo, "event-page-merchant");
  });
});

test.describe("in es-AR", () => {
  test.use({ storageState: storageStateOf("support"), locale: "es-AR" });

  test("finds an order by an event id and reads its event in Spanish", async ({ page, request }, testInfo) => {
    await paidLabOrder(request, "fnd_ord_es", "fnd_evt_es_1", "fnd_pay_es", 250_000);
    await page.goto("/orders");
    await search(page, "Buscar órdenes", "fnd_evt_es_1");
    const row = page.getByTestId("orders-table").locator("tbody tr");
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId("matched-by")).toHaveText("Encontrada por id de evento");
    await row.locator('[data-column="id"] a').click();
    await page.getByTestId("timeline").locator('tr[data-event-id="fnd_evt_es_1"]').getByTestId("event-link").click();
    await expect(page.getByRole("heading", { level: 1, name: "Evento fnd_evt_es_1" })).toBeVisible();
    await expect(page.getByRole("heading", { level: 2, name: "Contenido" })).toBeVisible();
    await expect(page.getByRole("heading", { level: 2, name: "Encabezados" })).toBeVisible();
    await expect(page.getByTestId("headers").locator('[data-header="lab-signature"]')).toHaveText("lab-signature firma");
    expect(text(await page.getByTestId("event-decisions").getByTestId("reason").innerText())).toBe("se acreditaron $ 2.500,00; orden fnd_ord_es: creada → pagada");
    await expect(page.getByTestId("event-endpoint")).toHaveText("lab (producción, cuenta lab)");
    await screenshot(page, testInfo, "event-page-es-AR");
  });
});

testOnDemoServer.describe("a customer's e-mail, on the demo server (the shared server has no Stripe endpoint)", () => {
  testOnDemoServer("support finds the customer's order by the e-mail Stripe sent, in any case", async ({ browser, demo: { url } }, testInfo) => {
    const api = { authorization: `Bearer ${DEMO_SECRETS.API_TOKEN}`, "content-type": "application/json" };
    expect((await fetch(`${url}/api/orders`, { method: "POST", headers: api, body: JSON.stringify({ id: "fnd_ord_email", amount: 4_990, currency: "USD", checkoutSessionId: "cs_fnd_email" }) })).status).toBe(201);
    const session = {
      id: "cs_fnd_email",
      object: "checkout.session",
      amount_total: 4_990,
      currency: "usd",
      client_reference_id: "fnd_ord_email",
      customer_details: { email: "Ana.Fnd@Example.com", name: "Ana" },
      livemode: true,
      metadata: {},
      mode: "payment",
      payment_intent: "pi_fnd_email",
      payment_status: "paid",
      status: "complete",
    };
    const body = JSON.stringify({ id: "evt_fnd_email", object: "event", type: "checkout.session.completed", livemode: true, created: Math.floor(Date.now() / 1000), account: DEMO_ACCOUNTS.stripe, data: { object: session } });
    const signature = new Stripe("sk_test_dummy").webhooks.generateTestHeaderString({ payload: body, secret: DEMO_ENDPOINT_SECRETS.STRIPE_WEBHOOK_SECRET });
    expect((await fetch(`${url}/api/webhooks/stripe`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": signature }, body })).status).toBe(200);
    // The server's own worker applies the stored event.
    await expect(async () => expect(((await (await fetch(`${url}/api/orders/fnd_ord_email`, { headers: api })).json()) as { status: string }).status).toBe("paid")).toPass({ timeout: 30_000 });

    const context = await browser.newContext({ baseURL: url, locale: "en-US" });
    const page = await context.newPage();
    const support = DEMO_USERS.find((user) => user.role === "support")!;
    expect((await page.request.post("/api/auth/sign-in/email", { data: { email: support.email, password: support.password }, headers: { origin: url } })).status()).toBe(200);
    await page.goto("/orders");
    await search(page, "Search orders", "ana.FND@example.COM");
    const rows = page.getByTestId("orders-table").locator("tbody tr");
    await expect(rows).toHaveCount(1);
    await expect(rows.first().locator('[data-column="id"] a')).toHaveText("fnd_ord_email");
    await expect(rows.first().getByTestId("matched-by")).toHaveText("Found by customer's e-mail");
    await screenshot(page, testInfo, "orders-search-email");
    await rows.first().locator('[data-column="id"] a').click();
    await page.getByRole("table").filter({ has: page.locator('tr[data-event-id="evt_fnd_email"]') }).first().locator('tr[data-event-id="evt_fnd_email"]').getByTestId("event-link").first().click();
    await expect(page.getByTestId("event-customer-email")).toHaveText("ana.fnd@example.com");
    await expect(page.getByTestId("headers").locator('[data-header="stripe-signature"]')).toHaveText("stripe-signature signature");
    await screenshot(page, testInfo, "event-page-stripe");
    await context.close();
  });
});
