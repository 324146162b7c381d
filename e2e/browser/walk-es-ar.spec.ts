// Reasons people can read, in their language: the spec seeds every kind of reason (a credit, a refund, a
// duplicate, an amount and a currency mismatch, an unknown order, a parked refund left open and one
// applied later, an extra charge for review, two refused signatures, a lab reconciliation with
// mismatches of five codes), then walks every dashboard page in es-AR and finds no English reason,
// category, next action, ledger kind or refusal, and no bare minor-unit amount; in English the same rows
// read with money formatted by currency ("credited ARS 15,000.00", never "credited 1500000 ARS"). The
// walk also checks each page for CSP violations (security.spec.ts's check, not loaded twice).
// The pages also show whatever the specs running beside it have written so far: none of it may read in
// English either. Its rows are found by their ids, never by their place in a list others write to.
import { expect, test, type Page, type TestInfo } from "@playwright/test";
import en from "@/lib/i18n/messages/en.json";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { REASONS, type ParamKind } from "@/lib/reasons/reason-codes";
import { createOrder, deliverLab, type LabEventInput } from "./support/api";
import { watchCsp } from "./support/csp";
import { E2E } from "./support/e2e-env";
import { screenshot, storageStateOf } from "./support/roles";

const text = (value: string) => value.replace(/[\u00a0\u202f]/g, " ");
const bearer = { authorization: `Bearer ${E2E.apiToken}` };

/**
 * Fragments of English that only a reason, a category or a next action contains: the dashboard's
 * English messages (reasons.*) and the English sentences the logs keep (lib/reasons/reason-codes.ts),
 * cut at their parameters, those of at least 12 characters (shorter ones, such as "credited", are
 * checked per cell below).
 */
function englishFragments(): string[] {
  const messages: string[] = [];
  const { code, category, nextAction, mismatchNext, ledgerKind, rejection } = en.reasons;
  for (const list of [code, category, nextAction, mismatchNext, ledgerKind, rejection]) messages.push(...Object.values(list));
  for (const definition of Object.values(REASONS)) {
    const params = Object.fromEntries(Object.entries(definition.params as Record<string, ParamKind>).map(([name, kind]) => [name, kind === "money" ? { amount: 0, currency: "\u0000" } : kind === "number" || kind === "seconds" ? 0 : "\u0000"]));
    messages.push((definition.en as (params: unknown) => string)(params).replace(/\b0\b/g, "\u0000"));
  }
  const fragments = messages.flatMap((message) => message.split(/\{[^}]*\}|\u0000/)).map((fragment) => fragment.trim().replace(/^[;:,.()\s]+|[;:,.()\s]+$/g, ""));
  return [...new Set(fragments.filter((fragment) => fragment.length >= 12))];
}

/** An amount in minor units next to a currency code ("1500000 ARS", "USD 1000"): what a merchant misreads. */
const BARE_MINOR_UNITS = /\b\d{4,}\s?(ARS|USD|EUR|BRL|JPY|CLP|MXN)\b|\b(ARS|USD|EUR|BRL|JPY|CLP|MXN)\s?\d{4,}\b/;

/** Words of the English lists that a translated cell must not show (the cell's `data-*` names the list). */
const CELL_LISTS = [
  { selector: "[data-category]", attribute: "data-category", english: { ...en.reasons.category } as Record<string, string> },
  { selector: "[data-kind]", attribute: "data-kind", english: { ...en.reasons.ledgerKind } as Record<string, string> },
  { selector: "[data-rejection]", attribute: "data-rejection", english: { ...en.reasons.rejection } as Record<string, string> },
  { selector: "[data-provider-status]", attribute: "data-provider-status", english: { ...en.reasons.providerStatus } as Record<string, string> },
  { selector: "[data-source]", attribute: "data-source", english: { ...en.decisionSources } as Record<string, string> },
  // "admin" is the same word in both languages.
  { selector: "[data-role]", attribute: "data-role", english: { ...en.roles } as Record<string, string>, same: ["admin"] },
];

/** The fragments, cut once for the whole walk. */
let fragments: string[] | undefined;
const englishFragmentsOnce = () => (fragments ??= englishFragments());

/** Checks one page in es-AR: no English fragment, no English word in a translated cell, no bare minor units. */
async function expectSpanishOnly(page: Page, testInfo: TestInfo, name: string, options: { skipTextOf?: string } = {}): Promise<void> {
  await expect(page.locator("html")).toHaveAttribute("lang", "es-AR");
  const main = page.locator("main");
  await expect(main).toBeVisible();
  // What the checks read, in one round trip to the page (a cell at a time took 2 round trips per cell,
  // hundreds on a page of 100 rows): main's text, the free text to skip, the uncoded reasons, each
  // translated cell's word and shown text, and each next action's text.
  const seen = await page.evaluate(
    ({ skipTextOf, lists }) => {
      const texts = (selector: string) => [...document.querySelectorAll<HTMLElement>(selector)].map((element) => element.innerText);
      return {
        body: document.querySelector<HTMLElement>("main")!.innerText,
        skipped: skipTextOf ? texts(skipTextOf) : [],
        uncoded: texts('[data-testid="reason"][data-coded="no"]'),
        cells: lists.map(({ selector, attribute }) => [...document.querySelectorAll<HTMLElement>(selector)].map((cell) => ({ word: cell.getAttribute(attribute) ?? "", shown: cell.innerText }))),
        nextActions: texts('[data-testid="next-action"]'),
      };
    },
    { skipTextOf: options.skipTextOf, lists: CELL_LISTS.map(({ selector, attribute }) => ({ selector, attribute })) },
  );
  let body = text(seen.body);
  // Free text people typed (audit notes, resolution notes) is shown as written: not a reason of Acredita's.
  for (const skipped of seen.skipped) body = body.replace(text(skipped), "");
  // Every reason this version wrote has a code: a cell showing a stored (English) sentence is a writer without one.
  expect(seen.uncoded, `reasons without a code on ${name}`).toEqual([]);
  const found = englishFragmentsOnce().filter((fragment) => body.includes(fragment));
  expect(found, `English reason text on ${name}`).toEqual([]);
  expect(body.match(BARE_MINOR_UNITS)?.[0] ?? null, `bare minor units on ${name}`).toBeNull();
  CELL_LISTS.forEach((list, index) => {
    for (const cell of seen.cells[index]) {
      const shown = text(cell.shown).trim();
      if ("same" in list && list.same?.includes(cell.word)) continue;
      expect(shown, `${list.attribute}=${cell.word} on ${name} is translated`).not.toBe(cell.word);
      if (list.english[cell.word] && list.english[cell.word] !== cell.word) expect(shown, `${list.attribute}=${cell.word} on ${name}`).not.toBe(list.english[cell.word]);
    }
  });
  const englishNextActions = Object.values(en.reasons.nextAction).concat(Object.values(en.reasons.mismatchNext));
  for (const shown of seen.nextActions) expect(englishNextActions).not.toContain(text(shown).trim());
  await screenshot(page, testInfo, `walk-es-AR-${name}`);
}

/** Posts a lab delivery signed with `secret` at `timestamp` (for the refusals before a valid signature). */
async function deliverSigned(request: Parameters<typeof deliverLab>[0], event: LabEventInput, secret: string, timestamp: number): Promise<number> {
  const body = JSON.stringify({ id: event.id, type: event.type, created: 1760181330, data: { payment_id: event.paymentId, order_id: event.orderId, amount: event.amount, currency: event.currency ?? "ARS" } });
  const response = await request.post("/api/webhooks/lab", { data: body, headers: { "content-type": "application/json", "Lab-Signature": signTimestamped(secret, timestamp, body) } });
  return response.status();
}

let runId = "";
let failedRunId = "";
let replayId = "";
/** The run's page with this spec's orders first (the lab's file also flags every lab order the other specs paid). */
const runPage = () => `/reconciliation/${runId}?sort=orderId&direction=desc&pageSize=100`;

// One seeding for the whole file: a failed test must not make Playwright seed again in a new worker.
test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ request }) => {
  const pay = (id: string, orderId: string, paymentId: string, amount: number, currency = "ARS") => deliverLab(request, { id, type: "payment.approved", orderId, paymentId, amount, currency });
  const refund = (id: string, orderId: string, paymentId: string, amount: number, currency = "ARS") => deliverLab(request, { id, type: "payment.refunded", orderId, paymentId, amount, currency });

  await createOrder(request, "ord_w_paid", 1_500_000);
  expect((await pay("evt_w_paid", "ord_w_paid", "pay_w_paid", 1_500_000)).reason).toBe("credited 1500000 ARS; order ord_w_paid created -> paid");
  expect((await pay("evt_w_paid", "ord_w_paid", "pay_w_paid", 1_500_000)).outcome).toBe("duplicate");
  await createOrder(request, "ord_w_refund", 1_000, "USD");
  await pay("evt_w_refund_pay", "ord_w_refund", "pay_w_refund", 1_000, "USD");
  expect((await refund("evt_w_refund", "ord_w_refund", "pay_w_refund", 1_000, "USD")).reason).toBe("refunded 1000 USD (total 1000); order ord_w_refund paid -> refunded");
  await createOrder(request, "ord_w_amount", 4_000_000);
  expect((await pay("evt_w_amount", "ord_w_amount", "pay_w_amount", 4_200_000)).status).toBe(422);
  await createOrder(request, "ord_w_currency", 500_000);
  expect((await pay("evt_w_currency", "ord_w_currency", "pay_w_currency", 500_000, "USD")).status).toBe(422);
  expect((await pay("evt_w_ghost", "ord_w_ghost", "pay_w_ghost", 100_000)).status).toBe(409);
  await createOrder(request, "ord_w_parked", 250_000);
  expect((await refund("evt_w_parked", "ord_w_parked", "pay_w_parked", 250_000)).status).toBe(409);
  // A refund parked before its approval, applied by the provider's retry once the approval landed.
  await createOrder(request, "ord_w_later", 320_000);
  expect((await refund("evt_w_later_refund", "ord_w_later", "pay_w_later", 320_000)).status).toBe(409);
  await pay("evt_w_later_pay", "ord_w_later", "pay_w_later", 320_000);
  expect((await refund("evt_w_later_refund", "ord_w_later", "pay_w_later", 320_000)).reason).toBe("refunded 320000 ARS (total 320000); order ord_w_later paid -> refunded; dead letter resolved");
  // A second payment of a paid order: an extra charge waiting in the review queue.
  await createOrder(request, "ord_w_extra", 700_000);
  await pay("evt_w_extra_1", "ord_w_extra", "pay_w_extra_1", 700_000);
  expect((await pay("evt_w_extra_2", "ord_w_extra", "pay_w_extra_2", 650_000)).reason).toContain("recorded as an extra charge for review");
  await createOrder(request, "ord_w_kept", 200_000);
  await pay("evt_w_kept", "ord_w_kept", "pay_w_kept", 200_000);
  await createOrder(request, "ord_w_usd", 300_000);
  await pay("evt_w_usd", "ord_w_usd", "pay_w_usd", 300_000);
  // A replay previewed of two events: the parked refund (still refused) and a credit already booked.
  const replay = await request.post("/api/replays", { data: { filter: { eventIds: ["evt_w_parked", "evt_w_paid"] }, dryRun: true }, headers: bearer });
  expect(replay.status()).toBe(201);
  replayId = ((await replay.json()) as { id: string }).id;
  // Two refusals before a valid signature: a wrong secret, and a timestamp 20 minutes old.
  const forged = { id: "evt_w_forged", type: "payment.approved", orderId: "ord_w_paid", paymentId: "pay_w_forged", amount: 1_500_000 } as const;
  expect(await deliverSigned(request, forged, "not-the-lab-secret", Math.floor(Date.now() / 1000))).toBe(401);
  expect(await deliverSigned(request, { ...forged, id: "evt_w_stale" }, E2E.labSecret, Math.floor(Date.now() / 1000) - 1_200)).toBe(401);

  // A lab settlement with a mismatch of each code: unsettled, missing (two), amount, currency, refund.
  const csv = [
    "order_id,provider_status,amount,currency",
    "ord_w_paid,none,0,ARS",
    "ord_w_parked,approved,250000,ARS",
    "ord_w_nowhere,approved,990000,ARS",
    "ord_w_extra,approved,650000,ARS",
    "ord_w_usd,approved,300000,USD",
    "ord_w_kept,refunded,200000,ARS",
    "ord_w_refund,refunded,1000,USD",
  ].join("\n");
  const upload = await request.post("/api/reconciliations?format=lab&source=walk-es-ar.csv", { data: csv, headers: { ...bearer, "content-type": "text/csv" } });
  expect(upload.status()).toBe(202);
  runId = ((await upload.json()) as { runId: string }).runId;
  await expect
    .poll(async () => ((await (await request.get(`/api/reconciliations/${runId}`, { headers: bearer })).json()) as { run: { status: string } }).run.status, { timeout: 30_000 })
    .toBe("done");
  // A Stripe report with a decimal comma on its second line: a failed run whose error is a reason.
  // A payment column, which the report needs to match its lines to payments, so the failure is the decimal comma.
  const stripe = "balance_transaction_id,created_utc,currency,gross,fee,net,reporting_category,payment_intent_id\ntxn_w_1,2026-11-29 12:00:00,usd,\"25,00\",0,25.00,charge,pi_w_1\n";
  const failed = await request.post("/api/reconciliations?source=walk-es-ar-bad.csv", { data: stripe, headers: { ...bearer, "content-type": "text/csv" } });
  expect(failed.status()).toBe(202);
  failedRunId = ((await failed.json()) as { runId: string }).runId;
  await expect
    .poll(async () => ((await (await request.get(`/api/reconciliations/${failedRunId}`, { headers: bearer })).json()) as { run: { status: string } }).run.status, { timeout: 30_000 })
    .toBe("failed");
});

test.describe("in es-AR", () => {
  test.use({ storageState: storageStateOf("admin"), locale: "es-AR" });

  test("every dashboard page: no English reason, category or next action, no bare minor-unit amount, and no CSP violation", async ({ page }, testInfo) => {
    test.setTimeout(180_000);
    const pages: [string, string, { skipTextOf?: string }?][] = [
      ["/orders", "orders"],
      ["/orders?q=ord_w", "orders-search"],
      ...["ord_w_paid", "ord_w_refund", "ord_w_amount", "ord_w_currency", "ord_w_parked", "ord_w_later", "ord_w_extra", "ord_1041", "ord_1045"].map((id) => [`/orders/${id}`, `order-${id}`] as [string, string]),
      ["/decisions", "decisions"],
      ["/decisions?outcome=dead_lettered", "decisions-dead-lettered"],
      ["/decisions?outcome=rejected", "decisions-rejected"],
      ["/dead-letters", "dead-letters-open"],
      ["/dead-letters?tab=resolved", "dead-letters-resolved", { skipTextOf: '[data-testid="resolution"][data-note]' }],
      ["/reconciliation", "reconciliation"],
      [runPage(), "reconciliation-run"],
      [`/reconciliation/${failedRunId}`, "reconciliation-run-failed"],
      ["/review", "review"],
      ["/replays", "replays"],
      [`/replays/${replayId}`, "replay"],
      ["/books?order=ord_w_paid+ord_w_parked+ord_w_later", "books"],
      ["/admin/users", "users"],
      ["/admin/audit", "audit", { skipTextOf: '[data-testid="audit-note"][data-coded="no"]' }],
      ["/account/password", "password"],
    ];
    // The CSP check of these pages too (security.spec.ts checks the rest): a 200 with no violation.
    const violations = await watchCsp(page);
    for (const [path, name, options] of pages) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(200);
      await expect(page.getByTestId("signed-in-as")).toHaveAttribute("data-role", "admin");
      await expectSpanishOnly(page, testInfo, name, options);
      expect(await violations(), `CSP violations on ${path}`).toEqual([]);
    }
  });

  test("the timeline reads each reason in Spanish with pesos and dollars as Argentines write them", async ({ page }) => {
    await page.goto("/orders/ord_w_paid");
    const timeline = page.getByTestId("timeline");
    await expect(timeline.locator('tr[data-outcome="applied"] [data-testid="reason"]')).toHaveText(/^se acreditaron \$\s15\.000,00; orden ord_w_paid: creada → pagada$/);
    await expect(timeline.locator('tr[data-outcome="duplicate"] [data-testid="reason"]').first()).toHaveText(/^el evento evt_w_paid ya estaba guardado \(estado: procesado\); no cambió nada$/);
    await expect(page.getByTestId("ledger").locator('[data-kind="credit"]')).toHaveText("acreditación");

    await page.goto("/orders/ord_w_refund");
    await expect(page.getByTestId("timeline").locator('tr[data-event-id="evt_w_refund"] [data-testid="reason"]')).toHaveText(/^se reembolsaron US\$\s10,00 \(total US\$\s10,00\); orden ord_w_refund: pagada → reembolsada$/);
    await expect(page.getByTestId("ledger").locator('[data-kind="refund"]')).toHaveText("reembolso");

    await page.goto("/orders/ord_w_amount");
    await expect(page.getByTestId("timeline").locator('[data-testid="reason"]').first()).toHaveText(/^el monto no coincide en la orden ord_w_amount: el pago es de \$\s42\.000,00 y la orden de \$\s40\.000,00$/);
    await expect(page.locator('[data-category="amount_mismatch"]')).toHaveText("monto distinto");

    await page.goto("/orders/ord_w_later");
    await expect(page.getByTestId("timeline").locator('tr[data-event-id="evt_w_later_refund"][data-outcome="applied"] [data-testid="reason"]')).toHaveText(/; evento retenido resuelto$/);
    await expect(page.locator("section[aria-labelledby=dl-h] li")).toContainText("se aplicó en un intento posterior (aplicado)");
  });

  test("dead letters: category, reason and next action in Spanish; the reconciliation run's reasons and next steps too", async ({ page }, testInfo) => {
    await page.goto("/dead-letters");
    const currency = page.locator('tr[data-event-id="evt_w_currency"]');
    await expect(currency.locator('[data-category="currency_mismatch"]')).toHaveText("moneda distinta");
    await expect(currency.getByTestId("reason")).toContainText("la moneda no coincide en la orden ord_w_currency: el pago es en USD y la orden en ARS");
    await expect(currency.getByTestId("next-action")).toHaveText(
      "Acredita no puede reembolsar un pago ni cambiar una orden: en el panel del proveedor, reembolsá el pago (o arreglalo con el cliente en la moneda de la orden) y después resolvelo acá con una nota que diga qué hiciste",
    );
    const parked = page.locator('tr[data-event-id="evt_w_parked"]');
    await expect(parked.locator('[data-category="transition"]')).toHaveText("falta una transición");
    await expect(parked.getByTestId("next-action")).toHaveText("esperá la transición que falta (por ejemplo, la aprobación) y reintentá");
    await expect(page.locator('tr[data-event-id="evt_w_ghost"]').getByTestId("reason")).toContainText("no existe la orden ord_w_ghost");
    await screenshot(page, testInfo, "dead-letters-es-AR");

    await page.goto(runPage());
    const rows = page.getByTestId("mismatches-table").locator("tbody tr");
    const codes = new Set(await rows.evaluateAll((all) => all.map((row) => row.getAttribute("data-code"))));
    for (const code of ["unsettled_credit", "missing_credit", "amount_mismatch", "currency_mismatch", "refund_mismatch"]) expect(codes.has(code), code).toBe(true);
    const extra = page.locator('tr[data-order-id="ord_w_extra"]');
    await expect(extra.getByTestId("reason")).toHaveText(/^acreditado \$\s7\.000,00, se esperaba \$\s6\.500,00$/);
    await expect(page.locator('tr[data-order-id="ord_w_usd"]').getByTestId("reason")).toHaveText("moneda ARS, liquidada en USD");
    await expect(page.locator('tr[data-order-id="ord_w_nowhere"]').getByTestId("reason")).toHaveText("la orden no está en Acredita");
    await expect(page.locator('tr[data-order-id="ord_w_kept"]').getByTestId("reason")).toHaveText(/^estado pagada, se esperaba reembolsada; acreditado \$\s2\.000,00, se esperaba \$\s0,00$/);
    await screenshot(page, testInfo, "reconciliation-run-es-AR");
  });

  test("a failed run's error and a refused upload read in Spanish", async ({ page }, testInfo) => {
    await page.goto(`/reconciliation/${failedRunId}`);
    await expect(page.getByTestId("run-error")).toHaveText('La conciliación falló: línea 2: gross: "25,00" no es un importe decimal como 25.00 (con punto decimal)');
    await page.goto("/reconciliation");
    const upload = async (name: string, csv: string) => {
      await page.getByLabel(/Reporte de liquidación/).setInputFiles({ name, mimeType: "text/csv", buffer: Buffer.from(csv) });
      await page.getByRole("button", { name: "Subir y conciliar" }).click();
    };
    await upload("sin-fee.csv", "balance_transaction_id,created_utc,currency,gross,net,reporting_category\n");
    await expect(page.getByTestId("upload-result")).toHaveText("El reporte fue rechazado: línea 1: falta(n) la(s) columna(s) para el reporte detallado de cambios de saldo de Stripe: fee");
    await upload("otro.csv", "id,amount\n1,2\n");
    await expect(page.getByTestId("upload-result")).toContainText("El reporte fue rechazado: línea 1: formato de liquidación desconocido");
    await expect(page).toHaveURL(/\/reconciliation$/);
    await screenshot(page, testInfo, "reconciliation-refused-es-AR");
  });

  test("a weak password is refused in Spanish, zxcvbn's advice too, on the Users and Password pages", async ({ page }, testInfo) => {
    await page.goto("/admin/users");
    await page.getByLabel("Email").fill("debil@merchant.test");
    await page.getByLabel("Nombre").fill("Débil");
    await page.getByLabel("Contraseña (12 a 128 caracteres, no común)").fill("password1234");
    await page.getByRole("button", { name: "Crear usuario" }).click();
    await expect(page.getByText("Revisá el formulario: contraseña: demasiado débil (fortaleza 1 de 4, se necesita 3): Se parece a una contraseña de uso común.")).toBeVisible();
    await expect(page.getByLabel("Email")).toHaveValue("debil@merchant.test");
    await screenshot(page, testInfo, "users-weak-password-es-AR");
    await page.goto("/account/password");
    await page.getByLabel("Contraseña actual").fill("not-the-current-one");
    await page.getByLabel("Contraseña nueva (12 a 128 caracteres)").fill("qwertyuiop12");
    await page.getByRole("button", { name: "Cambiar contraseña" }).click();
    await expect(page.getByTestId("password-result")).toHaveText(/^Contraseña demasiado débil \(fortaleza \d de 4, se necesita 3\): [^a-z]*[A-ZÁÉÍÓÚ][a-záéíóúñ]+ /);
    const shown = text(await page.getByTestId("password-result").innerText());
    expect(englishFragmentsOnce().filter((fragment) => shown.includes(fragment))).toEqual([]);
    expect(shown).not.toMatch(/keyboard|easy to guess|Avoid|Add more/);
  });

  test("refusals before a valid signature read in Spanish in the decision log, their diagnosis too", async ({ page }) => {
    await page.goto("/decisions?outcome=rejected");
    await expect(page.locator('tr[data-event-id="evt_w_forged"]').getByTestId("reason")).toContainText("la firma no coincide con ningún secreto de firma configurado");
    const stale = page.locator('tr[data-event-id="evt_w_stale"]');
    await expect(stale.getByTestId("reason")).toContainText(/^marca de tiempo fuera de la tolerancia: 1\.\d{3} s \(máximo 300 s\)/);
    await expect(stale.getByTestId("diagnosis")).toHaveText(/^la firma es válida \(LAB_WEBHOOK_SECRET\[0\]\) pero su marca de tiempo es de hace 1\.\d{3} s: una repetición de una entrega vieja, o el reloj del emisor está 1\.\d{3} s atrasado$/);
  });

  test("a retry's result and its audit note read in Spanish, with money formatted", async ({ page }, testInfo) => {
    await page.goto("/dead-letters");
    await page.locator('tr[data-event-id="evt_w_parked"]').getByRole("button", { name: "Reintentar evt_w_parked" }).click();
    await expect(page.getByTestId("action-result")).toHaveText(
      /evt_w_parked \(orden ord_w_parked\): volvió a fallar \(intento 2\)\. .*el pago pay_w_parked nunca se acreditó/,
    );
    await screenshot(page, testInfo, "dead-letters-retry-result-es-AR");
    await page.goto("/admin/audit?action=dead_letter.retry&target=evt_w_parked");
    await expect(page.getByLabel("Acción")).toHaveValue("dead_letter.retry");
    await expect(page.getByTestId("audit-table").locator("tbody tr")).toHaveCount(1);
    await expect(page.locator('tr[data-action="dead_letter.retry"] td').nth(2).first()).toHaveText("Evento retenido reintentado");
    const note = page.getByTestId("audit-note").first();
    await expect(note).toHaveAttribute("data-coded", "yes");
    await expect(note).toContainText(/^retenido: /);
    await expect(note).toContainText("pay_w_parked");
  });
});

test.describe("in English", () => {
  test.use({ storageState: storageStateOf("support"), locale: "en-US" });

  test("reasons show money formatted by currency, never raw minor units", async ({ page }, testInfo) => {
    await page.goto("/orders/ord_w_paid");
    await expect(page.getByTestId("timeline").locator('tr[data-outcome="applied"] [data-testid="reason"]')).toHaveText(/^credited ARS\s15,000\.00; order ord_w_paid created → paid$/);
    await page.goto("/orders/ord_w_refund");
    await expect(page.getByTestId("timeline").locator('tr[data-event-id="evt_w_refund"] [data-testid="reason"]')).toHaveText(/^refunded \$10\.00 \(total \$10\.00\); order ord_w_refund paid → refunded$/);
    await screenshot(page, testInfo, "walk-en-order-refund");
    await page.goto("/decisions");
    expect(text(await page.locator("main").innerText()).match(BARE_MINOR_UNITS)?.[0] ?? null).toBeNull();
    await page.goto(runPage());
    await expect(page.locator('tr[data-order-id="ord_w_extra"]').getByTestId("reason")).toHaveText(/^credited ARS\s7,000\.00, expected ARS\s6,500\.00$/);
    await expect(page.locator('tr[data-order-id="ord_w_paid"]').getByTestId("reason")).toHaveText(/^status paid, expected created; credited ARS\s15,000\.00, expected ARS\s0\.00$/);
    expect(text(await page.locator("main").innerText()).match(BARE_MINOR_UNITS)?.[0] ?? null).toBeNull();
    await screenshot(page, testInfo, "walk-en-reconciliation-run");
    await page.goto("/dead-letters");
    await expect(page.locator('tr[data-event-id="evt_w_amount"]').getByTestId("reason")).toContainText("amount mismatch for order ord_w_amount: payment ARS 42,000.00, order ARS 40,000.00");
    await screenshot(page, testInfo, "walk-en-dead-letters");
  });
});
