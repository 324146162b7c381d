// Replay with a money diff, as support does it: from the dead letters page to a preview of what the
// replay does to the order and its money, then apply it once; a preview gone stale; a bulk retry by
// filter that counts first; the books check of one order. English and es-AR. Every spec seeds its own
// orders and events under ids of its own, so it depends on no other spec's data.
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { createOrder, deliverLab } from "./support/api";
import { deadLetterOf, query, setLedgerAmount } from "./support/database";
import { E2E } from "./support/e2e-env";
import { demoUser, screenshot, storageStateOf } from "./support/roles";

/** Parks an approval for an order that does not exist yet (409, an unknown_order dead letter), then creates the order. */
async function unknownOrderThenOrder(request: Parameters<typeof createOrder>[0], orderId: string, eventId: string, amount: number) {
  const answer = await deliverLab(request, { id: eventId, type: "payment.approved", orderId, paymentId: `pay_${eventId}`, amount });
  expect(answer.status).toBe(409);
  await createOrder(request, orderId, amount);
}

function orderStatus(orderId: string): string {
  return query<{ status: string }>("SELECT status FROM \"Order\" WHERE id = ?", orderId)[0].status;
}

test.describe("as support, in English", () => {
  test.use({ storageState: storageStateOf("support") });

  test("preview a replay from a dead letter, see the money it moves, apply it once", async ({ page, request }, testInfo) => {
    await unknownOrderThenOrder(request, "ord_e2e_rp_en", "evt_e2e_rp_en", 150_000);

    await page.goto("/dead-letters");
    await page.getByTestId("replay-link").click();
    await expect(page.getByRole("heading", { level: 1, name: "Replays" })).toBeVisible();
    await page.getByLabel("Event ids (the provider's, separated by spaces or lines)").fill("evt_e2e_rp_en");
    await page.getByRole("button", { name: "Preview replay" }).click();

    await expect(page).toHaveURL(/\/replays\/[0-9A-Z]{26}$/);
    await expect(page.getByTestId("replay-status")).toHaveText("previewed, not applied");
    const order = page.locator('[data-testid="replay-orders"] tr[data-order-id="ord_e2e_rp_en"]');
    await expect(order.getByTestId("before")).toHaveText("created credited ARS 0.00, refunded ARS 0.00");
    await expect(order.getByTestId("after")).toHaveText("paid credited ARS 1,500.00, refunded ARS 0.00");
    await expect(order.getByTestId("entries")).toHaveText("credit +ARS 1,500.00 credit:lab:lab:live:pay_evt_e2e_rp_en");
    await expect(order.getByTestId("delta")).toHaveText("+ARS 1,500.00");
    const event = page.locator('[data-testid="replay-events"] tr[data-event-id="evt_e2e_rp_en"]');
    await expect(event).toHaveAttribute("data-outcome", "applied");
    await expect(event.getByTestId("reason")).toHaveText("credited ARS 1,500.00; order ord_e2e_rp_en created → paid; dead letter resolved");
    await screenshot(page, testInfo, "replay-preview");
    // The preview changed nothing.
    expect(orderStatus("ord_e2e_rp_en")).toBe("created");
    expect(deadLetterOf("evt_e2e_rp_en").status).toBe("open");

    await page.getByRole("button", { name: "Apply this replay" }).click();
    await expect(page.getByTestId("apply-result")).toHaveText("Applied. Events that moved money or state: 1 of 1. The dead letters of the applied events are resolved in your name.");
    expect(orderStatus("ord_e2e_rp_en")).toBe("paid");
    const letter = query<{ status: string; resolvedBy: string }>("SELECT status, resolvedBy FROM DeadLetter WHERE eventId = ?", "evt_e2e_rp_en")[0];
    expect(letter).toEqual({ status: "resolved", resolvedBy: demoUser("support").email });
    await page.reload();
    await expect(page.getByTestId("replay-status")).toHaveText("applied");
    await expect(page.getByTestId("replay-done")).toHaveText("Applied. Events that moved money or state: 1 of 1.");
    await expect(page.getByRole("button", { name: "Apply this replay" })).toHaveCount(0);
    await screenshot(page, testInfo, "replay-applied");
    expect(query<{ n: number }>("SELECT COUNT(*) AS n FROM AuditEntry WHERE action = 'replay.apply' AND actorEmail = ?", demoUser("support").email).map((row) => Number(row.n))[0]).toBeGreaterThanOrEqual(1);

    // The order's books agree with its events.
    await page.goto("/books?order=ord_e2e_rp_en");
    await expect(page.getByTestId("books-now").getByTestId("books-summary")).toHaveText("Books agree for 1 of 1 order.");
    await expect(page.getByTestId("health-books")).toBeVisible();
    await screenshot(page, testInfo, "books-check");
  });

  test("an order that moved since the preview: nothing is applied, and a new preview is offered", async ({ page, request }) => {
    await createOrder(request, "ord_e2e_rp_stale", 80_000);
    expect((await deliverLab(request, { id: "evt_e2e_rp_stale_r", type: "payment.refunded", orderId: "ord_e2e_rp_stale", paymentId: "pay_e2e_rp_stale", amount: 80_000 })).status).toBe(409);
    await page.goto("/replays?eventIds=evt_e2e_rp_stale_r");
    await page.getByRole("button", { name: "Preview replay" }).click();
    await expect(page.getByTestId("replay-status")).toHaveText("previewed, not applied");
    await expect(page.locator('[data-testid="replay-events"] tr[data-event-id="evt_e2e_rp_stale_r"]')).toHaveAttribute("data-outcome", "failed");
    // The payment arrives meanwhile, on a connection of its own: the fixture's kept-alive one has been
    // idle past the server's keep-alive timeout, and reusing it as the server closes it is a reset.
    const provider = await playwrightRequest.newContext({ baseURL: E2E.baseURL });
    expect((await deliverLab(provider, { id: "evt_e2e_rp_stale_a", type: "payment.approved", orderId: "ord_e2e_rp_stale", paymentId: "pay_e2e_rp_stale", amount: 80_000 })).outcome).toBe("applied");
    await provider.dispose();
    await page.getByRole("button", { name: "Apply this replay" }).click();
    await expect(page.getByTestId("apply-result")).toContainText("The books changed since this preview (orders: ord_e2e_rp_stale): nothing was applied.");
    await page.getByTestId("preview-again").click();
    await expect(page.getByLabel("Event ids (the provider's, separated by spaces or lines)")).toHaveValue("evt_e2e_rp_stale_r");
    await page.getByRole("button", { name: "Preview replay" }).click();
    const order = page.locator('[data-testid="replay-orders"] tr[data-order-id="ord_e2e_rp_stale"]');
    await expect(order.getByTestId("delta")).toHaveText("−ARS 800.00");
    await expect(order.getByTestId("after")).toHaveText("refunded credited ARS 0.00, refunded ARS 800.00");
  });

  test("a bulk retry by filter shows the count first and retries exactly those", async ({ page, request }, testInfo) => {
    await unknownOrderThenOrder(request, "ord_e2e_rp_bulk", "evt_e2e_rp_bulk", 12_000);
    await page.goto("/replays");
    await page.getByLabel("Dead letter's reason code").fill("unknown_order");
    await page.getByLabel("Order", { exact: true }).fill("ord_e2e_rp_bulk");
    await page.getByRole("button", { name: "Count dead letters to retry" }).click();
    await expect(page.getByTestId("count-result")).toHaveText("1 open dead letter matches the filter: nothing is retried until you press Retry.");
    await expect(page.getByTestId("counted-dead-letters")).toContainText("lab:evt_e2e_rp_bulk");
    expect(deadLetterOf("evt_e2e_rp_bulk").status).toBe("open");
    await screenshot(page, testInfo, "replay-bulk-count");
    await page.getByRole("button", { name: "Retry 1 dead letter" }).click();
    await expect(page.getByTestId("retry-result")).toContainText("Retried 1 dead letter:");
    await expect(page.getByTestId("retry-result")).toContainText("evt_e2e_rp_bulk (order ord_e2e_rp_bulk): applied.");
    await expect(page.getByRole("button", { name: "Retry 1 dead letter" })).toHaveCount(0);
    expect(orderStatus("ord_e2e_rp_bulk")).toBe("paid");
  });
});

test.describe("the books check, as support", () => {
  test.use({ storageState: storageStateOf("support") });

  test("a hand-corrupted ledger row is reported with its event and a link to its order; nothing is corrected", async ({ page, request }, testInfo) => {
    await createOrder(request, "ord_e2e_rp_books", 50_000);
    expect((await deliverLab(request, { id: "evt_e2e_rp_books", type: "payment.approved", orderId: "ord_e2e_rp_books", paymentId: "pay_e2e_rp_books", amount: 50_000 })).outcome).toBe("applied");
    setLedgerAmount("credit:lab:lab:live:pay_e2e_rp_books", 49_999);
    try {
      await page.goto("/books");
      await page.getByLabel("Order ids (at most 25)").fill("ord_e2e_rp_books");
      await page.getByRole("button", { name: "Check" }).click();
      const now = page.getByTestId("books-now");
      await expect(now.getByTestId("books-summary")).toHaveText("Books agree for 0 of 1 order. 1 order differs.");
      const row = now.locator('[data-testid="books-differences"] tr[data-order-id="ord_e2e_rp_books"]');
      await expect(row.getByTestId("difference")).toHaveText("credit entry of another amount credit:lab:lab:live:pay_e2e_rp_books: books +ARS 499.99, rebuilt +ARS 500.00 (events evt_e2e_rp_books)");
      await screenshot(page, testInfo, "books-difference");
      await row.getByRole("link", { name: "ord_e2e_rp_books" }).click();
      await expect(page).toHaveURL(/\/orders\/ord_e2e_rp_books$/);
      expect(query<{ amount: number }>("SELECT amount FROM LedgerEntry WHERE businessKey = ?", "credit:lab:lab:live:pay_e2e_rp_books")[0].amount).toBe(49_999);
    } finally {
      setLedgerAmount("credit:lab:lab:live:pay_e2e_rp_books", 50_000);
    }
  });
});

test.describe("as support, in Spanish", () => {
  test.use({ storageState: storageStateOf("support"), locale: "es-AR" });

  test("vista previa y aplicación de un reprocesamiento, en es-AR", async ({ page, request }, testInfo) => {
    await unknownOrderThenOrder(request, "ord_e2e_rp_es", "evt_e2e_rp_es", 150_000);
    await page.goto("/replays");
    await expect(page.getByRole("heading", { level: 1, name: "Reprocesamientos" })).toBeVisible();
    await page.getByLabel("Ids de eventos (los del proveedor, separados por espacios o líneas)").fill("evt_e2e_rp_es");
    await page.getByRole("button", { name: "Vista previa" }).click();
    await expect(page.getByTestId("replay-status")).toHaveText("en vista previa, sin aplicar");
    const order = page.locator('[data-testid="replay-orders"] tr[data-order-id="ord_e2e_rp_es"]');
    await expect(order.getByTestId("before")).toHaveText("creada acreditado $ 0,00, reembolsado $ 0,00");
    await expect(order.getByTestId("after")).toHaveText("pagada acreditado $ 1.500,00, reembolsado $ 0,00");
    await expect(order.getByTestId("delta")).toHaveText("+$ 1.500,00");
    await expect(page.locator('[data-testid="replay-events"] tr[data-event-id="evt_e2e_rp_es"]').getByRole("cell").nth(4)).toHaveText("se aplica");
    await screenshot(page, testInfo, "replay-preview-es-AR");
    await page.getByRole("button", { name: "Aplicar este reprocesamiento" }).click();
    await expect(page.getByTestId("apply-result")).toHaveText("Aplicado. Eventos que movieron dinero o estado: 1 de 1. Los eventos retenidos de los eventos aplicados quedan resueltos a tu nombre.");
    expect(orderStatus("ord_e2e_rp_es")).toBe("paid");
    await page.reload();
    await expect(page.getByTestId("replay-status")).toHaveText("aplicado");
    await screenshot(page, testInfo, "replay-applied-es-AR");
  });
});

test.describe("as a merchant", () => {
  test.use({ storageState: storageStateOf("merchant") });

  test("neither the replays page nor the link to it", async ({ page }) => {
    const response = await page.goto("/replays");
    expect(response?.status()).toBe(403);
    await page.goto("/dead-letters");
    await expect(page.getByTestId("replay-link")).toHaveCount(0);
  });
});
