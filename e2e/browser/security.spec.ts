// Dashboard hardening in a real browser: security headers on every answer, every dashboard page
// renders under the CSP without a single violation, and a server action replayed with a foreign Origin
// is refused by Next.js and changes nothing (the same request with the page's own Origin works).
import { expect, test } from "@playwright/test";
import { contentSecurityPolicy } from "@/lib/security/security-headers.mjs";
import { watchCsp } from "./support/csp";
import { query } from "./support/database";
import { storageStateOf } from "./support/roles";

const EXPECTED_HEADERS = {
  "content-security-policy": contentSecurityPolicy(),
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
  "cross-origin-opener-policy": "same-origin",
};

test("pages, API answers and webhook answers carry the security headers; the CSP forbids framing and foreign scripts", async ({ request }) => {
  expect(EXPECTED_HEADERS["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(EXPECTED_HEADERS["content-security-policy"]).toContain("script-src 'self' 'unsafe-inline'");
  expect(EXPECTED_HEADERS["content-security-policy"]).not.toContain("unsafe-eval");
  const answers = [
    await request.get("/sign-in"),
    await request.get("/orders", { maxRedirects: 0 }),
    await request.get("/api/health"),
    await request.get("/api/webhooks/lab"),
  ];
  expect(answers.map((answer) => answer.status())).toEqual([200, 307, 200, 405]);
  for (const answer of answers) {
    const headers = answer.headers();
    for (const [name, value] of Object.entries(EXPECTED_HEADERS)) expect(headers[name], `${answer.url()} ${name}`).toBe(value);
  }
});

test("every dashboard page renders under the CSP with no violation", async ({ browser }) => {
  const context = await browser.newContext({ storageState: storageStateOf("admin") });
  const page = await context.newPage();
  const violations = await watchCsp(page);
  // The other dashboard pages (orders, an order, decisions, dead letters, review, reconciliation and a
  // run, replays, books, users, audit, password) are checked as admin on walk-es-ar.spec.ts's walk, with
  // more kinds of rows on them than here, instead of being loaded a second time.
  for (const path of ["/endpoints"]) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(200);
    await expect(page.getByTestId("signed-in-as")).toHaveAttribute("data-role", "admin");
    expect(await violations(), path).toEqual([]);
  }
  await context.close();
  const anonymous = await browser.newContext();
  const signIn = await anonymous.newPage();
  const signInViolations = await watchCsp(signIn);
  await signIn.goto("/sign-in");
  await expect(signIn.getByRole("button", { name: "Sign in" })).toBeEnabled();
  expect(await signInViolations(), "/sign-in").toEqual([]);
  await anonymous.close();
});

test("a server action replayed with a foreign Origin is refused and creates nothing; the same request from the page's origin works", async ({ browser, baseURL }) => {
  const context = await browser.newContext({ storageState: storageStateOf("admin") });
  const page = await context.newPage();
  const violations = await watchCsp(page);
  await page.goto("/admin/users");
  const email = "csrf-probe@acredita.test";
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Name").fill("CSRF probe");
  await page.getByLabel("Role", { exact: true }).selectOption("admin");
  await page.getByLabel("Password (12 to 128 characters, not common)").fill("csrf-probe-password-1");

  // Capture the action request the page's own client code builds (it carries Next-Action), and stop it.
  const captured = new Promise<{ url: string; headers: Record<string, string>; body: Buffer }>((resolve) => {
    void page.route("**/admin/users", (route) => {
      const request = route.request();
      if (request.method() !== "POST" || !request.headers()["next-action"]) return route.continue();
      resolve({ url: request.url(), headers: request.headers(), body: request.postDataBuffer() ?? Buffer.alloc(0) });
      return route.abort();
    });
  });
  await page.getByRole("button", { name: "Create user" }).click();
  const action = await captured;
  expect(action.headers["next-action"]).toMatch(/^[0-9a-f]{40,}$/);
  expect(await violations()).toEqual([]);

  // The admin's cookies go with both replays (context.request shares them); only the Origin differs.
  const replay = (origin: string) => context.request.post(action.url, { headers: { ...action.headers, origin }, data: action.body, maxRedirects: 0 });
  const foreign = await replay("https://attacker.example");
  expect(foreign.status()).toBe(500);
  expect(query<{ n: number }>("SELECT COUNT(*) AS n FROM User WHERE email = ?", email)).toEqual([{ n: 0 }]);

  const own = await replay(baseURL!);
  expect(own.status()).toBe(200);
  expect(query<{ role: string }>("SELECT role FROM User WHERE email = ?", email)).toEqual([{ role: "admin" }]);
  await context.close();
});
