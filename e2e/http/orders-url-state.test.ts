import { TEST_DB } from "../support/test-env";
// slow-test: reads the orders page's URL states from the built server in both languages
// The orders page read from its URL as a person types or shares it, against the BUILT server: a filter
// it does not understand is named, not silently read as "any"; a page past the last one says so and
// links the last page (English and es-AR). The HTML as served, signed in as a merchant.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createUserWithPassword } from "@/lib/auth/users";
import { closeDb, db } from "@/lib/db/client";
import { ensureBuilt } from "../support/real-server";
import { startServer, type RunningServer } from "../support/server";

const PASSWORD = "orders-url-state-lantern-2026";
let server: RunningServer;
let cookie = "";

before(async () => {
  ensureBuilt();
  const client = await db();
  assert.equal((await createUserWithPassword(client, { email: "merchant@orders-url.test", name: "Merchant", role: "merchant", password: PASSWORD })).kind, "created");
  // 30 orders: two pages of the default 25.
  await client.order.createMany({ data: Array.from({ length: 30 }, (_, index) => ({ id: `ord_url_${String(index).padStart(2, "0")}`, amount: 1_000 + index, currency: "ARS" })) });
  server = await startServer({ DATABASE_URL: TEST_DB.url, INBOX_WORKER_IN_PROCESS: "false", OUTBOX_DISPATCHER_ENABLED: "false" });
  const signIn = await fetch(`${server.url}/api/auth/sign-in/email`, { method: "POST", body: JSON.stringify({ email: "merchant@orders-url.test", password: PASSWORD }), headers: { "content-type": "application/json", origin: server.url } });
  assert.equal(signIn.status, 200, await signIn.clone().text());
  cookie = signIn.headers.getSetCookie().find((value) => value.includes("session_token="))!.split(";")[0];
});

after(async () => {
  await server?.stop();
  await closeDb();
});

/** The orders page's HTML at `query`, in `locale`, with React's text separators removed. */
async function ordersPage(query: string, locale = "en"): Promise<{ status: number; html: string }> {
  const response = await fetch(`${server.url}/orders${query}`, { headers: { cookie: `${cookie}; NEXT_LOCALE=${locale}` } });
  return { status: response.status, html: (await response.text()).replaceAll("<!-- -->", "") };
}

test("?status=bogus is named as not understood (and not applied), in English and es-AR; a known status says nothing", async () => {
  const english = await ordersPage("?status=bogus&pageSize=7");
  assert.equal(english.status, 200);
  assert.ok(english.html.includes('<p class="notice info" role="status">Not understood, so not applied: status “bogus”, pageSize “7”.</p>'), english.html.slice(0, 3_000));
  const spanish = await ordersPage("?status=bogus", "es-AR");
  assert.ok(spanish.html.includes('<p class="notice info" role="status">No se entendió, así que no se aplicó: status “bogus”.</p>'));
  const known = await ordersPage("?status=created");
  assert.equal(known.html.includes("notice info"), false);
});

test("?page=99 of 2 says there is no such page and links the last one and the first (English and es-AR)", async () => {
  const english = await ordersPage("?page=99");
  assert.equal(english.status, 200);
  assert.ok(
    english.html.includes('There is no page 99: the list has 2 pages. <a href="/orders?sort=updatedAt&amp;dir=desc&amp;pageSize=25&amp;page=2">Go to the last page</a> · <a href="/orders?sort=updatedAt&amp;dir=desc&amp;pageSize=25">First</a>'),
    english.html.slice(english.html.indexOf("<main"), english.html.indexOf("<main") + 3_000),
  );
  const spanish = await ordersPage("?page=99", "es-AR");
  assert.ok(spanish.html.includes('No hay página 99: la lista tiene 2 páginas. <a href="/orders?sort=updatedAt&amp;dir=desc&amp;pageSize=25&amp;page=2">Ir a la última página</a>'));
  // The last page itself lists its 5 orders.
  const last = await ordersPage("?page=2");
  assert.equal((last.html.match(/href="\/orders\/ord_url_\d\d"/g) ?? []).length, 5);
});
