import "@/e2e/support/test-env";
// Dashboard hardening: the session cookie is httpOnly and SameSite=Lax always, and Secure (with
// the __Secure- prefix) whenever the dashboard is served over https.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createAuth } from "@/lib/auth/auth";
import { readSettings } from "@/lib/config/settings";
import { closeDb, db } from "@/lib/db/client";
import { DEMO_USERS, seedDemoUsers } from "@/lib/demo/demo-users";

const admin = DEMO_USERS.find((user) => user.role === "admin")!;

async function signInCookie(baseUrl: string): Promise<string[]> {
  const auth = createAuth(await db(), { ...readSettings(), AUTH_BASE_URL: baseUrl });
  const response = await auth.handler(
    new Request(`${baseUrl}/api/auth/sign-in/email`, {
      method: "POST",
      body: JSON.stringify({ email: admin.email, password: admin.password }),
      headers: { "content-type": "application/json", origin: baseUrl, "x-forwarded-for": "198.51.100.90" },
    }),
  );
  assert.equal(response.status, 200);
  const cookie = response.headers.getSetCookie().find((value) => value.includes("session_token="));
  assert.ok(cookie, "sign-in sets a session cookie");
  return cookie.split(";").map((part) => part.trim());
}

before(async () => {
  assert.deepEqual(await seedDemoUsers(await db(), { mode: "demo" }), { created: 3 });
});
after(closeDb);

test("over https the session cookie is __Secure-, Secure, HttpOnly, SameSite=Lax, Path=/", async () => {
  const [nameValue, ...attributes] = await signInCookie("https://dashboard.acredita.example");
  assert.match(nameValue, /^__Secure-better-auth\.session_token=/);
  assert.deepEqual(attributes.map((attribute) => attribute.split("=")[0].toLowerCase()).filter((name) => ["secure", "httponly", "samesite", "path"].includes(name)).sort(), ["httponly", "path", "samesite", "secure"]);
  assert.ok(attributes.includes("SameSite=Lax"), attributes.join("; "));
  assert.ok(attributes.includes("Path=/"));
});

test("over plain http (the local demo) it is HttpOnly and SameSite=Lax, without Secure (a browser would drop it)", async () => {
  const [nameValue, ...attributes] = await signInCookie("http://127.0.0.1:3000");
  assert.match(nameValue, /^better-auth\.session_token=/);
  assert.ok(attributes.includes("HttpOnly"));
  assert.ok(attributes.includes("SameSite=Lax"));
  assert.equal(attributes.some((attribute) => attribute.toLowerCase() === "secure"), false);
});
