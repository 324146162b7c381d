// The Alerts page: an admin adds a webhook channel (a local receiver; its secret shown once), a dead
// letter opens an incident that the page shows open and the channel receives once, signed with Standard
// Webhooks; the dead letter resolved, the page shows the incident resolved and a resolved notice
// arrives; the same page in es-AR. On a server of its own: an incident is the whole organization's (any
// dead letter another spec parks would be counted into it), and its evaluator runs every second with
// private URLs allowed (the receiver is on 127.0.0.1).
import { expect } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { AlertReceiver } from "@/e2e/support/alert-receivers";
import type { AlertNotice } from "@/lib/alerts/alert-message";
import { createOrder, deliverLab } from "./support/api";
import { testOnOwnServer } from "./support/own-server";
import { screenshot } from "./support/roles";

const test = testOnOwnServer("alerts", { ALERTS_CHECK_INTERVAL_SECONDS: "1", ALERTS_ALLOW_PRIVATE_URLS: "true" });

const receiver = new AlertReceiver();
let base = "";

test.beforeAll(async () => {
  base = await receiver.start();
});
test.afterAll(() => receiver.stop());

/** The notices the receiver took, each checked against the channel's secret. */
function verifiedNotices(secret: string): AlertNotice[] {
  return receiver.requests.map((request) => new Webhook(secret).verify(request.body, request.headers) as AlertNotice);
}

test.describe("alerts, as an admin", () => {
  test.use({ role: "admin" });

  test("configure a webhook channel, see an incident open and resolve, one signed notice each", async ({ page, request, own }, testInfo) => {
    await page.goto("/orders");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Alerts" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Alerts" })).toBeVisible();
    await expect(page.getByTestId("rules").locator('tr[data-rule="dead_letter_open"]')).toContainText("1 open dead letter or more");

    const form = page.getByTestId("add-channel");
    await form.getByLabel("Kind").selectOption("webhook");
    await form.getByLabel("URL (https)").fill(`${base}/acredita-alerts`);
    await form.getByRole("button", { name: "Add channel" }).click();
    await expect(page.getByTestId("add-channel-status")).toContainText("Channel added.");
    const secret = (await page.getByTestId("channel-secret").textContent())!.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await expect(page.getByTestId("channels")).toContainText(`${base}/acredita-alerts`);
    await expect(page.getByTestId("incidents").locator("tr[data-incident]")).toHaveCount(0);

    // A payment of the wrong amount is parked as a dead letter.
    await createOrder(request, "ord_e2e_alert", 100_000);
    expect((await deliverLab(request, { id: "evt_e2e_alert", type: "payment.approved", orderId: "ord_e2e_alert", paymentId: "pay_e2e_alert", amount: 90_000 })).status).toBe(422);
    const incident = page.getByTestId("incidents").locator('tr[data-rule="dead_letter_open"]');
    await expect(async () => {
      await page.reload();
      await expect(incident).toHaveAttribute("data-status", "open", { timeout: 500 });
    }).toPass({ timeout: 10_000 });
    await expect(incident).toContainText("Dead letters open");
    await expect(incident).toContainText("Open");
    await expect.poll(() => receiver.requests.length, { timeout: 10_000 }).toBe(1);
    const [opened] = verifiedNotices(secret);
    expect([opened.type, opened.incident.rule, opened.incident.count]).toEqual(["alert.opened", "dead_letter_open", 1]);
    await screenshot(page, testInfo, "alerts-open");

    own.db.resolveDeadLetter("evt_e2e_alert");
    await expect(async () => {
      await page.reload();
      await expect(incident).toHaveAttribute("data-status", "resolved", { timeout: 500 });
    }).toPass({ timeout: 10_000 });
    await expect(incident).toContainText("Resolved");
    await expect.poll(() => receiver.requests.length, { timeout: 10_000 }).toBe(2);
    const [, resolved] = verifiedNotices(secret);
    expect([resolved.type, resolved.incident.id]).toEqual(["alert.resolved", opened.incident.id]);
    expect(new Set(receiver.requests.map((request) => request.headers["webhook-id"])).size).toBe(2);
    await screenshot(page, testInfo, "alerts-resolved");
  });
});

test.describe("alerts in es-AR", () => {
  test.use({ role: "admin", locale: "es-AR" });

  test("the incidents, channels and rules in Spanish", async ({ page }, testInfo) => {
    await page.goto("/alerts");
    await expect(page.getByRole("heading", { level: 1, name: "Alertas" })).toBeVisible();
    await expect(page.getByTestId("incidents").locator('tr[data-rule="dead_letter_open"]')).toContainText("Eventos retenidos abiertos");
    await expect(page.getByTestId("incidents").locator('tr[data-rule="dead_letter_open"]')).toContainText("Resuelto");
    await expect(page.getByTestId("rules").locator('tr[data-rule="pending_event_age"]')).toContainText("con más de 10 minutos");
    await expect(page.getByTestId("channels")).toContainText("Webhook (Standard Webhooks)");
    await screenshot(page, testInfo, "alerts-es-AR");
  });
});
