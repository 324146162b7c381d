// The language switch without a server action (proxy.ts refuses an action's post from anyone not
// signed in, and the sign-in page shows the switch): POST /api/locale through its route handler.
import assert from "node:assert/strict";
import { test } from "node:test";
import { POST as postLocale } from "@/app/api/locale/route";

function post(body: string, headers: Record<string, string> = {}): Promise<Response> {
  return postLocale(new Request("http://127.0.0.1:3000/api/locale", { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded", host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000", "content-length": String(Buffer.byteLength(body)), ...headers } }));
}

test("a switch sets the locale cookie for a year and goes back to the page it came from (303), with no session", async () => {
  const response = await post("next=%2Fsign-in%3Fnext%3D%252Forders&locale=es-AR");
  assert.equal(response.status, 303);
  assert.equal(response.headers.get("location"), "/sign-in?next=%2Forders");
  assert.equal(response.headers.get("set-cookie"), "NEXT_LOCALE=es-AR; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly");
  const back = await post("next=/orders&locale=en");
  assert.deepEqual([back.status, back.headers.get("location"), back.headers.get("set-cookie")?.split(";")[0]], [303, "/orders", "NEXT_LOCALE=en"]);
});

test("another site's page cannot switch a visitor's language (403); an unknown locale is 400, a large body 413, an off-site next goes to /orders", async () => {
  assert.equal((await post("locale=es-AR&next=/orders", { origin: "https://evil.example" })).status, 403);
  assert.equal((await post("locale=es-AR&next=/orders", { origin: "null" })).status, 403);
  assert.equal((await post("locale=fr&next=/orders")).status, 400);
  // Not a form: said as such (it was read as a form and answered unknown_locale).
  const json = await post(JSON.stringify({ locale: "es-AR" }), { "content-type": "application/json" });
  assert.deepEqual([json.status, await json.json()], [415, { error: "the language could not be changed", code: "form_expected" }]);
  assert.equal((await post(`locale=en&next=/${"a".repeat(5_000)}`)).status, 413);
  const offSite = await post("locale=en&next=//evil.example/x");
  assert.deepEqual([offSite.status, offSite.headers.get("location")], [303, "/orders"]);
});
