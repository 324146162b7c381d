// The retry flow without surprises: results named by event and order, rows that keep their place under
// the pointer after an action, and review-first dead letters (amount or currency mismatch) that ask
// before a retry that would fail again, in English and es-AR. On a server of its own: the pointer check
// reads where rows stand on the page after a retry, and another spec's dead letters parked meanwhile on a
// shared server would move them.
import { expect, type Browser, type Page } from "@playwright/test";
import { createOrder, deliverLab } from "./support/api";
import { testOnOwnServer, type OwnServer } from "./support/own-server";
import { screenshot } from "./support/roles";
import { untilHydrated } from "./support/hydration";

const test = testOnOwnServer("retry-flow");

/** The support colleague of this spec's own: the dead letters handed to them are the only rows of `?owner=`. */
const DESK = { email: "rows-desk@support.test", password: "umber-lantern-fjord-52" };

/** An admin creates {@link DESK} as a support user in the Users page. */
async function createDesk(browser: Browser, own: OwnServer): Promise<void> {
  const admin = await browser.newContext({ baseURL: own.url, storageState: await own.storageStateOf("admin") });
  const page = await admin.newPage();
  await page.goto("/admin/users");
  await page.getByLabel("Email").fill(DESK.email);
  await page.getByLabel("Name").fill("Rows desk");
  await page.getByLabel("Role", { exact: true }).selectOption("support");
  await page.getByLabel("Password (12 to 128 characters, not common)").fill(DESK.password);
  await page.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByText(`Created ${DESK.email}.`)).toBeVisible();
  await admin.close();
}

/** The event id of the table row under the pointer at (x, y). */
function rowUnder(page: Page, x: number, y: number): Promise<string | null> {
  return page.evaluate(([px, py]) => document.elementFromPoint(px, py)?.closest("tr")?.getAttribute("data-event-id") ?? null, [x, y] as const);
}

/** Moves the pointer onto `eventId`'s Retry button and clicks it there; returns the point. */
async function clickRetry(page: Page, eventId: string): Promise<{ x: number; y: number }> {
  const button = page.locator(`tr[data-event-id="${eventId}"]`).getByRole("button", { name: `Retry ${eventId}` });
  await button.scrollIntoViewIfNeeded();
  const box = (await button.boundingBox())!;
  const point = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await page.mouse.move(point.x, point.y);
  await page.mouse.click(point.x, point.y);
  return point;
}

function auditCount(own: OwnServer, letterId: string): number {
  return Number(own.db.query<{ n: number }>("SELECT COUNT(*) AS n FROM AuditEntry WHERE targetId = ?", letterId)[0].n);
}

test.describe("as support, in English", () => {
  test.use({ role: "support" });

  test("a review-first dead letter asks first: cancel and Escape change nothing; the dialog says why and offers the order", async ({ own, page, request }, testInfo) => {
    await createOrder(request, "ord_e2e_rf_amount", 100_000);
    expect((await deliverLab(request, { id: "evt_e2e_rf_amount", type: "payment.approved", orderId: "ord_e2e_rf_amount", paymentId: "pay_e2e_rf_1", amount: 90_000 })).status).toBe(422);
    const letter = own.db.deadLetterOf("evt_e2e_rf_amount");

    await page.goto("/dead-letters");
    const row = page.locator('tr[data-event-id="evt_e2e_rf_amount"]');
    const retry = row.getByRole("button", { name: "Retry evt_e2e_rf_amount" });
    await expect(retry).toHaveText("Retry…");
    await expect(row.getByTestId("retry-badge")).toHaveText("review first");
    await retry.click();
    const dialog = page.getByRole("dialog", { name: "Retry evt_e2e_rf_amount? It will most likely fail again" });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText("The payment's amount is not the order's amount: a retry compares them again.");
    await expect(dialog).toContainText("A retry runs the same checks on the stored event: it fails again and the attempt count rises. Settle the payment in the provider's dashboard instead, then resolve with a note.");
    await expect(dialog.getByRole("link", { name: "Open order ord_e2e_rf_amount" })).toHaveAttribute("href", "/orders/ord_e2e_rf_amount");
    await screenshot(page, testInfo, "dead-letters-review-first-confirm");

    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    await retry.click();
    await expect(dialog).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(row.getByTestId("attempts")).toHaveText("1");
    expect(own.db.deadLetterOf("evt_e2e_rf_amount")).toMatchObject({ status: "open", attempts: 1 });
    expect(auditCount(own, letter.id)).toBe(0);

    // Selected with others, a bulk retry skips it and says why; still attempt 1.
    await untilHydrated(page.getByLabel("Select dead letter of evt_e2e_rf_amount"));
    await page.getByLabel("Select dead letter of evt_e2e_rf_amount").check();
    await page.getByTestId("retry-selected").click();
    await expect(page.getByTestId("action-result")).toContainText(
      "evt_e2e_rf_amount (order ord_e2e_rf_amount): not retried, review first. The payment's amount is not the order's amount: a retry compares them again. Settle the payment in the provider's dashboard, then resolve with a note; nothing changed.",
    );
    expect(own.db.deadLetterOf("evt_e2e_rf_amount").attempts).toBe(1);

    // "Retry anyway" runs it: it fails again, named by event and order, attempt 2.
    await retry.click();
    await dialog.getByRole("button", { name: "Retry anyway" }).click();
    await expect(page.getByTestId("action-result")).toContainText("evt_e2e_rf_amount (order ord_e2e_rf_amount): failed again (attempt 2).");
    await expect(row.getByTestId("attempts")).toHaveText("2");
    expect(own.db.deadLetterOf("evt_e2e_rf_amount")).toMatchObject({ status: "open", attempts: 2 });
    expect(auditCount(own, letter.id)).toBe(1);
  });

  test("after a retry the row under the pointer is the same row, whether it applied or failed again", async ({ browser, own, page, request }, testInfo) => {
    await createDesk(browser, own);
    for (const name of ["a", "b", "c"]) {
      await createOrder(request, `ord_e2e_rf_${name}`, 100_000);
      const parked = await deliverLab(request, { id: `evt_e2e_rf_${name}`, type: "payment.refunded", orderId: `ord_e2e_rf_${name}`, paymentId: `pay_e2e_rf_${name}`, amount: 100_000 });
      expect(parked.status).toBe(409);
    }
    // b's approval arrives: its retry applies. a's does not: its retry fails again.
    expect((await deliverLab(request, { id: "evt_e2e_rf_b_ok", type: "payment.approved", orderId: "ord_e2e_rf_b", paymentId: "pay_e2e_rf_b", amount: 100_000 })).outcome).toBe("applied");
    // Handed to this spec's colleague, the three are the only rows of its owner filter: dead letters other
    // specs park meanwhile would otherwise come in above them when the page refreshes after a retry.
    await page.goto("/dead-letters?provider=lab&category=transition");
    for (const name of ["a", "b", "c"]) {
      const row = page.locator(`tr[data-event-id="evt_e2e_rf_${name}"]`);
      await row.getByText("Hand to a colleague").click();
      await row.getByLabel("Colleague").selectOption(DESK.email);
      await row.getByRole("button", { name: "Hand over" }).click();
      await expect(page.getByTestId("action-result")).toHaveText(`Handed to ${DESK.email}.`);
      await expect(row.locator('[data-column="owner"]')).toHaveText(DESK.email);
    }

    await page.goto(`/dead-letters?owner=${encodeURIComponent(DESK.email)}`);
    const order = () => page.getByTestId("dead-letters-table").locator("tbody tr").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-event-id")));
    const before = await order();
    // Newest first failure first.
    expect(before).toEqual(["evt_e2e_rf_c", "evt_e2e_rf_b", "evt_e2e_rf_a"]);
    // Scrolled to the page's end, where a row that gets shorter would make the browser scroll the page up.
    await page.setViewportSize({ width: 1280, height: 480 });
    // Once the resize has been laid out (it may take a frame), and without smooth scrolling.
    await expect(async () => {
      await page.evaluate(() => window.scrollTo({ top: document.documentElement.scrollHeight, behavior: "instant" }));
      expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
    }).toPass({ timeout: 5_000 });

    const atB = await clickRetry(page, "evt_e2e_rf_b");
    await expect(page.getByTestId("action-result")).toContainText("evt_e2e_rf_b (order ord_e2e_rf_b): applied.");
    await expect(page.locator('tr[data-event-id="evt_e2e_rf_b"]')).toHaveAttribute("data-state", "departed");
    expect(await rowUnder(page, atB.x, atB.y)).toBe("evt_e2e_rf_b");

    const atA = await clickRetry(page, "evt_e2e_rf_a");
    await expect(page.getByTestId("action-result")).toContainText("evt_e2e_rf_a (order ord_e2e_rf_a): failed again (attempt 2).");
    await expect(page.locator('tr[data-event-id="evt_e2e_rf_a"]').getByTestId("attempts")).toHaveText("2");
    expect(await rowUnder(page, atA.x, atA.y)).toBe("evt_e2e_rf_a");
    expect(await order()).toEqual(before);
    await screenshot(page, testInfo, "dead-letters-stable-rows");

    // Loaded again, the applied one has left the open tab and the others keep their order.
    await page.reload();
    expect(await order()).toEqual(before.filter((eventId) => eventId !== "evt_e2e_rf_b"));
    expect(own.db.deadLetterOf("evt_e2e_rf_b").status).toBe("resolved");
  });
});

test.describe("as support, in Spanish", () => {
  test.use({ role: "support", locale: "es-AR" });

  test("the confirmation and the results in es-AR", async ({ own, page, request }, testInfo) => {
    await createOrder(request, "ord_e2e_rf_currency", 100_000, "ARS");
    expect((await deliverLab(request, { id: "evt_e2e_rf_currency", type: "payment.approved", orderId: "ord_e2e_rf_currency", paymentId: "pay_e2e_rf_cur", amount: 100_000, currency: "USD" })).status).toBe(422);

    await page.goto("/dead-letters");
    const row = page.locator('tr[data-event-id="evt_e2e_rf_currency"]');
    const retry = row.getByRole("button", { name: "Reintentar evt_e2e_rf_currency" });
    await expect(retry).toHaveText("Reintentar…");
    await retry.click();
    const dialog = page.getByRole("dialog", { name: "¿Reintentar evt_e2e_rf_currency? Lo más probable es que vuelva a fallar" });
    await expect(dialog).toContainText("La moneda del pago no es la de la orden: un reintento las vuelve a comparar.");
    await expect(dialog.getByRole("link", { name: "Abrir la orden ord_e2e_rf_currency" })).toBeVisible();
    await screenshot(page, testInfo, "dead-letters-review-first-confirm-es-AR");
    await dialog.getByRole("button", { name: "Cancelar" }).click();
    expect(own.db.deadLetterOf("evt_e2e_rf_currency").attempts).toBe(1);

    await retry.click();
    await dialog.getByRole("button", { name: "Reintentar igual" }).click();
    await expect(page.getByTestId("action-result")).toContainText("evt_e2e_rf_currency (orden ord_e2e_rf_currency): volvió a fallar (intento 2).");
    expect(own.db.deadLetterOf("evt_e2e_rf_currency").attempts).toBe(2);
  });
});
