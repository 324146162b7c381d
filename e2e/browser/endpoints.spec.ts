// The Endpoints page (support and admin): configuration, last delivery, counts per outcome with a small
// chart, pending inbox events and rotation status per secret label, in English and es-AR; never a
// secret value in the HTML or the RSC payload; merchants neither see the link nor the page. On a server of
// its own: the last delivery and the 24-hour counts are the whole endpoint's, which other specs' deliveries
// would change.
import path from "node:path";
import { expect, type APIRequestContext } from "@playwright/test";
import { DEMO_USERS } from "@/lib/demo/demo-accounts";
import { DEMO_ENDPOINT_SECRETS } from "@/lib/endpoints/endpoints";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { testOnDemoServer } from "./support/demo-server";
import { createOrder, deliverLab } from "./support/api";
import { E2E } from "./support/e2e-env";
import { testOnOwnServer, type OwnServer } from "./support/own-server";
import { screenshot } from "./support/roles";

const test = testOnOwnServer("endpoints");

const DAY = 86_400_000;

/** Every text form a secret could leak in: as is, base64 and base64url at each of the three byte alignments. */
function leakForms(secret: string): string[] {
  const forms = [secret];
  for (const pad of ["", "x", "xy"]) {
    const bytes = Buffer.from(pad + secret);
    // Skip the characters that encode the padding's bytes (and the last, partial group).
    const skip = Math.ceil((pad.length * 4) / 3);
    for (const encoded of [bytes.toString("base64"), bytes.toString("base64url")]) forms.push(encoded.slice(skip + 1, skip + 1 + 12));
  }
  return forms;
}

const SECRETS = { labSecret: E2E.labSecret, labOldSecret: E2E.labOldSecret, labRetiredSecret: E2E.labRetiredSecret, apiToken: E2E.apiToken, authSecret: E2E.authSecret };

/** A refusal signed with the retired secret and the old secret's last match, 3 days and 2 hours ago. */
async function seedRotation(request: APIRequestContext, own: OwnServer) {
  await createOrder(request, "ord_e2e_ep_1", 10_000);
  expect((await deliverLab(request, { id: "evt_e2e_ep_ok", type: "payment.approved", orderId: "ord_e2e_ep_1", paymentId: "pay_e2e_ep_1", amount: 10_000 })).status).toBe(200);
  const refused = await deliverLab(request, { id: "evt_e2e_ep_retired", type: "payment.approved", orderId: "ord_e2e_ep_1", paymentId: "pay_e2e_ep_2", amount: 10_000 }, E2E.labRetiredSecret);
  expect(refused.status).toBe(401);
  if (own.db.query<{ n: number }>("SELECT COUNT(*) AS n FROM Decision WHERE eventId = 'evt_ep_old_match'")[0].n === 0) {
    own.db.insertPastDecision("ep_old_match", "lab", "LAB_WEBHOOK_SECRET[1]", new Date(Date.now() - 3 * DAY - 2 * 3_600_000));
  }
}

/** The lab's decisions by outcome in the last 24 h as the page should count them (refusals from their counter). */
function labLast24h(own: OwnServer): number {
  const since = new Date(Date.now() - DAY).toISOString().replace("Z", "+00:00");
  const decisions = own.db.query<{ n: number }>("SELECT COUNT(*) AS n FROM Decision WHERE endpoint = 'lab' AND at >= ? AND NOT (outcome = 'rejected' AND verified = ?)", since, own.database.url.startsWith("postgres") ? "false" : 0)[0].n;
  const refusals = own.db.query<{ n: number | null }>("SELECT SUM(count) AS n FROM RejectionCount WHERE endpoint = 'lab' AND minute >= ?", since)[0].n ?? 0;
  return Number(decisions) + Number(refusals);
}

test.describe("as support, in English", () => {
  test.use({ role: "support" });

  test("each endpoint with its configuration, counts, chart and rotation status", async ({ page, request, own }, testInfo) => {
    await seedRotation(request, own);
    await page.goto("/orders");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Endpoints" }).click();
    await expect(page).toHaveURL(/\/endpoints$/);
    await expect(page.getByRole("heading", { level: 1, name: "Endpoints" })).toBeVisible();

    const cards = page.getByTestId("endpoint");
    await expect(cards).toHaveCount(6);
    expect(await cards.evaluateAll((nodes) => nodes.map((node) => `${node.getAttribute("data-endpoint")}:${node.getAttribute("data-state")}`))).toEqual([
      "lab:enabled",
      "stripe:disabled",
      "stripe-test:disabled",
      "yolfi:disabled",
      "yolfi-test:disabled",
      "standard-webhooks:disabled",
    ]);
    const lab = page.locator('[data-endpoint="lab"]');
    await expect(lab.getByRole("heading", { level: 2 })).toHaveText("lab enabled live inline");
    await expect(lab).toContainText("POST /api/webhooks/lab");
    await expect(lab.getByTestId("public-demo")).toHaveCount(0);
    await expect(page.locator('[data-endpoint="stripe"]').getByTestId("state-detail")).toHaveText("STRIPE_WEBHOOK_SECRET is not set: the endpoint answers 404.");

    // The last delivery is the refusal signed with the retired secret, seconds ago.
    await expect(lab.getByTestId("last-delivery")).toContainText(/^\d+ sec ago: rejected \(HTTP 401\) · unsigned or wrongly signed/);
    // Counts: the page's 24 h total is the database's, refusals counted once (from their per-minute counter).
    await expect(async () => {
      await page.reload();
      await expect(lab.locator('[data-outcome="total"] td').first()).toHaveText(String(labLast24h(own)), { timeout: 1_000 });
    }).toPass({ timeout: 15_000 });
    await expect(lab.locator('[data-outcome="applied"] th')).toHaveText("applied");
    const chart = lab.getByTestId("endpoint-chart");
    await expect(chart).toHaveAttribute("role", "img");
    await expect(chart).toHaveAttribute("aria-label", /^Decisions per day at lab over the last 7 days: (\w+ \d+: \d+, ){6}\w+ \d+: \d+$/);
    await expect(lab.getByTestId("pending")).toHaveText("none");

    const secrets = lab.getByTestId("secrets").locator("tbody tr");
    expect(await secrets.evaluateAll((rows) => rows.map((row) => `${row.getAttribute("data-label")}:${row.getAttribute("data-status")}`))).toEqual([
      "LAB_WEBHOOK_SECRET[0]:in_use",
      "LAB_WEBHOOK_SECRET[1]:safe_to_retire",
      "LAB_WEBHOOK_RETIRED_SECRETS[0]:still_tried",
    ]);
    await expect(secrets.nth(1)).toContainText("last matched 3 days 2 hr ago while another secret matches since: safe to retire");
    await expect(secrets.nth(2)).toContainText(/retired, still being tried: a delivery signed with it was refused \d+ sec ago/);
    await screenshot(page, testInfo, "endpoints");
    // The top of the page down to the lab's card, for the README (docs/img/endpoints.png is a copy); not under npm test (E2E_SCREENSHOTS=0).
    const card = (await lab.boundingBox())!;
    if (process.env.E2E_SCREENSHOTS !== "0") await page.screenshot({ path: path.join(testInfo.project.outputDir, "screenshots", "endpoints-top.png"), fullPage: true, clip: { x: 0, y: 0, width: page.viewportSize()!.width, height: card.y + card.height + 12 } });
  });

  test("a dashboard retry is not a delivery: the last delivery stays the provider's; every card lays out the same", async ({ page, request, own }, testInfo) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await createOrder(request, "ord_e2e_ep_rt", 10_000);
    // A refund before its approval is parked (409); the approval applies, then arrives again (duplicate).
    expect((await deliverLab(request, { id: "evt_e2e_ep_rt_refund", type: "payment.refunded", orderId: "ord_e2e_ep_rt", paymentId: "pay_e2e_ep_rt", amount: 10_000 })).status).toBe(409);
    expect((await deliverLab(request, { id: "evt_e2e_ep_rt_ok", type: "payment.approved", orderId: "ord_e2e_ep_rt", paymentId: "pay_e2e_ep_rt", amount: 10_000 })).outcome).toBe("applied");
    expect((await deliverLab(request, { id: "evt_e2e_ep_rt_ok", type: "payment.approved", orderId: "ord_e2e_ep_rt", paymentId: "pay_e2e_ep_rt", amount: 10_000 })).outcome).toBe("duplicate");
    // The refund retried from the dashboard applies: a newer decision, with source "retry".
    await page.goto("/dead-letters");
    await page.locator('tr[data-event-id="evt_e2e_ep_rt_refund"]').getByRole("button", { name: "Retry evt_e2e_ep_rt_refund" }).click();
    await expect(page.getByTestId("action-result")).toContainText("evt_e2e_ep_rt_refund (order ord_e2e_ep_rt): applied.");
    const [newest] = own.db.query<{ source: string; outcome: string }>("SELECT source, outcome FROM Decision WHERE endpoint = 'lab' ORDER BY at DESC LIMIT 1");
    expect(newest).toEqual({ source: "retry", outcome: "applied" });

    await page.goto("/endpoints");
    const lab = page.locator('[data-endpoint="lab"]');
    await expect(lab.getByTestId("last-delivery")).toContainText(/^\d+ sec ago: duplicate \(HTTP 200\) /);
    // Every card: the details on the left, the counts (or "no traffic") on the right, at the same x.
    const columns = await page.getByTestId("endpoint").evaluateAll((cards) =>
      cards.map((card) => {
        const facts = card.querySelector(".facts")!.getBoundingClientRect();
        const side = card.querySelector(".endpoint-body")!.children[1].getBoundingClientRect();
        return { besides: side.left >= facts.right && side.top < facts.bottom, left: Math.round(side.left) };
      }),
    );
    expect(columns).toHaveLength(6);
    expect(columns.every((column) => column.besides)).toBe(true);
    expect(new Set(columns.map((column) => column.left)).size).toBe(1);
    await screenshot(page, testInfo, "endpoints-1280");
  });

  test("no secret value, in any form, in the served HTML or the RSC payload", async ({ page, request, own }) => {
    await seedRotation(request, own);
    const html = await (await page.request.get("/endpoints")).text();
    expect(html).toContain("LAB_WEBHOOK_SECRET[1]");
    const flight = await page.request.get("/endpoints", { headers: { RSC: "1" } });
    expect(flight.headers()["content-type"]).toContain("text/x-component");
    const payload = await flight.text();
    expect(payload).toContain("LAB_WEBHOOK_RETIRED_SECRETS[0]");
    for (const [name, secret] of Object.entries(SECRETS)) {
      for (const form of leakForms(secret)) {
        expect(html.includes(form), `${name} (${form}) in the HTML`).toBe(false);
        expect(payload.includes(form), `${name} (${form}) in the RSC payload`).toBe(false);
      }
    }
  });
});

test.describe("as admin, in Spanish", () => {
  test.use({ role: "admin", locale: "es-AR" });

  test("the same page in es-AR: states, windows, rotation advice", async ({ page, request, own }, testInfo) => {
    await seedRotation(request, own);
    await page.goto("/endpoints");
    await expect(page.getByRole("heading", { level: 1, name: "Endpoints" })).toBeVisible();
    const lab = page.locator('[data-endpoint="lab"]');
    await expect(lab.getByRole("heading", { level: 2 })).toHaveText("lab habilitado producción inmediato");
    await expect(page.locator('[data-endpoint="stripe-test"]').getByRole("heading", { level: 2 })).toHaveText("stripe-test deshabilitado prueba bandeja");
    await expect(page.locator('[data-endpoint="stripe-test"]').getByTestId("state-detail")).toHaveText("STRIPE_TEST_WEBHOOK_SECRET no está definida: el endpoint responde 404.");
    await expect(lab.getByRole("columnheader", { name: "Últimas 24 h" })).toBeVisible();
    await expect(lab.getByRole("columnheader", { name: "Últimos 7 días" })).toBeVisible();
    await expect(lab.getByTestId("endpoint-chart")).toHaveAttribute("aria-label", /^Decisiones por día en lab en los últimos 7 días: /);
    const secrets = lab.getByTestId("secrets").locator("tbody tr");
    await expect(secrets.nth(1)).toContainText(/coincidió por última vez hace 3 \S+ 2 h y otro secreto coincide desde entonces: se puede retirar/);
    await expect(secrets.nth(2)).toContainText(/retirado, todavía lo usan: se rechazó una entrega firmada con él hace \d+ s/);
    await expect(lab.getByTestId("last-delivery")).toContainText("rechazado (HTTP 401) · sin firma o con firma incorrecta");
    await screenshot(page, testInfo, "endpoints-es-AR");
  });
});

test.describe("as merchant", () => {
  test.use({ role: "merchant" });

  test("no Endpoints link, and the page itself answers 403 saying the role does not allow it", async ({ page }) => {
    await page.goto("/orders");
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Endpoints" })).toHaveCount(0);
    expect((await page.goto("/endpoints"))?.status()).toBe(403);
    await expect(page.getByText("Your role does not allow this.")).toBeVisible();
    await expect(page.getByTestId("endpoint")).toHaveCount(0);
  });
});

testOnDemoServer.describe("in demo mode", () => {
  testOnDemoServer("every endpoint on its public demo secret is flagged red, the lab's [demo] label matched, and no demo value on the page", async ({ browser, demo: { url } }, testInfo) => {
    const body = JSON.stringify({ id: "evt_e2e_demo_1", type: "payment.approved", created: 1760181330, data: { payment_id: "pay_e2e_demo_1", order_id: "ord_1041", amount: 2_500_000, currency: "ARS" } });
    const delivered = await fetch(`${url}/api/webhooks/lab`, { method: "POST", body, headers: { "content-type": "application/json", "Lab-Signature": signTimestamped(DEMO_ENDPOINT_SECRETS.LAB_WEBHOOK_SECRET, Math.floor(Date.now() / 1000), body) } });
    expect(delivered.status).toBe(200);

    const context = await browser.newContext({ baseURL: url });
    const page = await context.newPage();
    const support = DEMO_USERS.find((user) => user.role === "support")!;
    await page.goto("/sign-in?next=%2Fendpoints");
    await page.getByLabel("Email").fill(support.email);
    await page.getByLabel("Password").fill(support.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`${url}/endpoints`);

    const flags = page.getByTestId("public-demo");
    await expect(flags).toHaveCount(6);
    await expect(flags.first()).toHaveText("Public demo secret in use: anyone can sign deliveries for this endpoint");
    // Red: the notice's "bad" colours.
    expect(await flags.first().evaluate((node) => getComputedStyle(node).color)).toBe("rgb(138, 20, 20)");
    const lab = page.locator('[data-endpoint="lab"]');
    await expect(lab.getByTestId("secrets").locator("tbody tr")).toHaveCount(1);
    await expect(lab.getByTestId("secrets").locator('tr[data-label="LAB_WEBHOOK_SECRET[demo]"]')).toHaveAttribute("data-status", "public_demo");
    await expect(lab.getByTestId("secrets")).toContainText("public demo secret: never for real traffic");
    await expect(lab.getByTestId("last-delivery")).toContainText(/^\d+ sec ago: applied \(HTTP 200\) /);
    await screenshot(page, testInfo, "endpoints-demo");

    const html = await (await page.request.get("/endpoints")).text();
    const payload = await (await page.request.get("/endpoints", { headers: { RSC: "1" } })).text();
    for (const [name, secret] of Object.entries(DEMO_ENDPOINT_SECRETS)) {
      for (const form of leakForms(secret)) {
        expect(html.includes(form), `${name} in the HTML`).toBe(false);
        expect(payload.includes(form), `${name} in the RSC payload`).toBe(false);
      }
    }
    await context.close();
  });
});
