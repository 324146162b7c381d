import "@/e2e/support/test-env";
// The dashboard's filter options come from index seeks (one per distinct value), not a GROUP BY over
// every row (dashboard at scale): same answer, sorted, capped at 50.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { decisionProviders } from "@/lib/decisions/list-decisions";
import { orderCurrencies } from "@/lib/orders/list-orders";
const DEFAULT_ORG = "org_default";

after(closeDb);

test("decision providers: each distinct provider once, sorted; none on an empty log; at most 50", async () => {
  const database = await db();
  assert.deepEqual(await decisionProviders(database, DEFAULT_ORG), []);
  const row = (provider: string) => ({ provider, endpoint: provider, verified: false, outcome: "rejected", reason: "test" });
  await database.decision.createMany({ data: ["stripe", "lab", "yolfi", "lab", "standard-webhooks", "stripe", "unknown", "lab"].map(row) });
  assert.deepEqual(await decisionProviders(database, DEFAULT_ORG), ["lab", "standard-webhooks", "stripe", "unknown", "yolfi"]);
  await database.decision.createMany({ data: Array.from({ length: 60 }, (_, i) => row(`p${String(i).padStart(2, "0")}`)) });
  const capped = await decisionProviders(database, DEFAULT_ORG);
  assert.equal(capped.length, 50);
  assert.deepEqual(capped.slice(0, 3), ["lab", "p00", "p01"]);
});

test("order currencies: each distinct currency once, sorted", async () => {
  const database = await db();
  assert.deepEqual(await orderCurrencies(database), []);
  const now = new Date();
  await database.order.createMany({ data: ["USD", "ARS", "BRL", "ARS", "USD"].map((currency, i) => ({ id: `ord_fo_${i}`, amount: 100, currency, updatedAt: now })) });
  assert.deepEqual(await orderCurrencies(database), ["ARS", "BRL", "USD"]);
});
