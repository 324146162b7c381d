// slow-test: plays the whole lab against a built server, reconciliation and comparison included
// npm run lab against a built server, the comparison included: the lab's main runs in this process
// (the server is the process under test; e2e/http/demo-mode.test.ts runs the lab's script once).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { paymentIntent, stripeEvent, stripeHeader, yolfiEvent, yolfiSignature } from "../support/providers";
import { waitFor } from "../support/real-server";
import { freshDatabaseUrl, startServer, type RunningServer } from "../support/server";
import { runMain } from "../support/cli";
import { main as labCli } from "@/scripts/lab";

const SECRET = "lab_cli_secret_0001";
const TOKEN = "lab-cli-token-0123456789abcdef-0001";
const STRIPE_SECRET = "whsec_lab_cli_stripe_0001";
const YOLFI_SECRET = "yolfi_lab_cli_secret_0001";
let server: RunningServer;
const databaseUrl = freshDatabaseUrl();

before(async () => {
  server = await startServer({ DATABASE_URL: databaseUrl, LAB_WEBHOOK_SECRET: SECRET, API_TOKEN: TOKEN, STRIPE_WEBHOOK_SECRET: STRIPE_SECRET, STRIPE_ACCOUNT_ID: "acct_lab_cli", YOLFI_WEBHOOK_SECRET: YOLFI_SECRET, YOLFI_ORG_ID: "org_lab_cli" });
});

const auth = { authorization: `Bearer ${TOKEN}` };

async function post(path: string, body: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(`${server.url}${path}`, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
  await response.arrayBuffer();
  return response.status;
}
after(() => server.stop());

async function lab(...args: string[]) {
  // A production server: the lab plays there only when told. With the server's PORT and DATABASE_URL the
  // lab knows the target's data, and writes its settlement beside it (not in this checkout's data/).
  const result = await runMain(labCli, ["--url", server.url, "--allow-production", ...args], { ...process.env, LAB_WEBHOOK_SECRET: SECRET, API_TOKEN: TOKEN, PORT: String(server.port), DATABASE_URL: databaseUrl });
  return { code: result.code, lines: result.stdout.split("\n"), stderr: result.stderr };
}

/** The delivery lines as [event, HTTP status, outcome]. */
function deliveries(lines: string[]): string[][] {
  return lines.flatMap((line) => {
    const match = /^\+\S+\s+(evt_\d+)\s+.*?\s(\d{3})\s+([a-z_]+)\s/.exec(line);
    return match ? [[match[1], match[2], match[3]]] : [];
  });
}

test("npm run lab against a real server: the five scenarios, 0 mismatches, and the three-row comparison", async () => {
  const run = await lab("--compare");
  assert.equal(run.code, 0, run.stderr);
  // Scenarios 1 and 2 send two copies at once: which copy is applied and which is the duplicate varies.
  const got = deliveries(run.lines);
  const sortedPair = (pair: string[][]) => [...pair].sort((a, b) => a[2].localeCompare(b[2]));
  assert.deepEqual([...sortedPair(got.slice(0, 2)), ...sortedPair(got.slice(2, 4)), ...got.slice(4)], [
    ["evt_0001", "200", "applied"],
    ["evt_0001", "200", "duplicate"],
    ["evt_0002", "200", "applied"],
    ["evt_0002", "200", "duplicate"],
    ["evt_0003", "200", "applied"],
    ["evt_9999", "401", "rejected"],
    ["evt_0005", "409", "dead_lettered"],
    ["evt_0004", "200", "applied"],
    ["evt_0005", "200", "applied"],
    ["evt_0003", "401", "rejected"],
  ]);
  // The replay is signed 259200 s before it is sent; the receiver's clock may tick a second on the way.
  assert.ok(run.lines.some((line) => /timestamp outside tolerance: 25920[0-2] s \(max 300\)$/.test(line)), run.lines.join("\n"));
  assert.ok(run.lines.includes("0 mismatches in 5 settlement rows and 5 orders; over-credited: ARS 0.00"), run.lines.join("\n"));
  const table = run.lines.slice(run.lines.findIndex((line) => line.startsWith("receiver"))).filter(Boolean).map((line) => line.split(/\s{2,}/));
  assert.deepEqual(table.slice(1), [
    // Over-credited money formatted by currency, never bare minor units (11550000 ARS).
    ["naive", "1,2,3,4,5", "5 of 5", "ARS 115,500.00"],
    ["look-up-then-mark", "1,2", "1 of 2", "ARS 18,500.00"],
    ["hardened (Acredita)", "1,2,3,4,5", "0 of 5", "ARS 0.00"],
  ]);
});

test("running the lab again changes nothing: every event is a duplicate or rejected, still 0 mismatches (here printed in es-AR: --locale)", async () => {
  const run = await lab("--locale", "es-AR");
  assert.equal(run.code, 0, run.stderr);
  assert.ok(run.lines.includes("0 diferencias en 5 filas de liquidación y 5 órdenes; acreditado de más: $ 0,00"), run.lines.join("\n"));
  const outcomes = deliveries(run.lines).map(([, status, outcome]) => `${status} ${outcome}`);
  assert.deepEqual(outcomes, ["200 duplicado", "200 duplicado", "200 duplicado", "200 duplicado", "200 duplicado", "401 rechazado", "200 duplicado", "200 duplicado", "401 rechazado"]);
  // The table's words in Spanish; each server answer as the provider received it (English, as logged).
  assert.ok(run.lines.some((line) => /^hora\s+evento\s+qué\s+HTTP\s+resultado\s+respuesta del servidor$/.test(line)), run.lines.join("\n"));
  assert.ok(run.lines.some((line) => /^\+0s\s+evt_0001\s+aprobación de ord_1041\s+200\s+duplicado\s+event evt_0001 already stored/.test(line)), run.lines.join("\n"));
  assert.ok(run.lines.some((line) => /evt_0003\s+repetición del pedido firmado de evt_0003, de hace 3 días\s+401\s+rechazado\s/.test(line)), run.lines.join("\n"));
  assert.ok(run.lines.includes("Proveedor del laboratorio -> " + server.url + "/api/webhooks/lab"), run.lines.join("\n"));
  // The columns line up: every delivery's HTTP status starts where the header's does.
  const headerLine = run.lines.find((line) => line.startsWith("hora"))!;
  const status = headerLine.indexOf("HTTP");
  for (const line of run.lines.filter((each) => /^\+\S+\s+evt_/.test(each))) assert.match(line.slice(status - 1, status + 4), /^ \d{3} $/, line);
});

test("after Stripe's and Yolfi's payments on the same server, the lab's reconciliation still finds 0 mismatches in its 5 orders", async () => {
  assert.equal(await post("/api/orders", JSON.stringify({ id: "ord_lx_stripe", amount: 2500, currency: "USD" }), auth), 201);
  assert.equal(await post("/api/orders", JSON.stringify({ id: "ord_lx_yolfi", amount: 150000, currency: "ARS" }), auth), 201);
  const stripeBody = JSON.stringify(stripeEvent("evt_lx_pi", "payment_intent.succeeded", paymentIntent({ id: "pi_lx", orderId: "ord_lx_stripe", amount: 2500, currency: "usd" }), { account: "acct_lab_cli" }));
  assert.equal(await post("/api/webhooks/stripe", stripeBody, { "stripe-signature": stripeHeader(stripeBody, STRIPE_SECRET) }), 200);
  const yolfiBody = yolfiEvent({ id: "evt_lx_y", type: "payment.confirmed", orgId: "org_lab_cli", data: { invoiceId: "inv_lx", amount: "24.95", token: "USDT", paymentId: "ypay_lx", merchantOrderId: "ord_lx_yolfi" } });
  assert.equal(await post("/api/webhooks/yolfi", yolfiBody, { "x-yolfi-signature": yolfiSignature(yolfiBody, YOLFI_SECRET), "x-yolfi-event-id": "evt_lx_y" }), 200);
  for (const id of ["ord_lx_stripe", "ord_lx_yolfi"]) {
    await waitFor(`${id} paid by the in-process worker`, async () => ((await (await fetch(`${server.url}/api/orders/${id}`, { headers: auth })).json()).status === "paid" ? true : undefined));
  }
  const run = await lab();
  assert.equal(run.code, 0, `${run.lines.join("\n")}\n${run.stderr}`);
  assert.ok(run.lines.includes("0 mismatches in 5 settlement rows and 5 orders; over-credited: ARS 0.00"), run.lines.join("\n"));
});
