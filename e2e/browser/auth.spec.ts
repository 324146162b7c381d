// Sign-in, sessions and roles beyond the setup's sign-in per role: the JSON API takes a token or a
// session, login attempts are rate-limited per client IP, admins manage users, and users sign out.
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { query } from "./support/database";
import { E2E } from "./support/e2e-env";
import { demoUser, screenshot, storageStateOf } from "./support/roles";

const bearer = { authorization: `Bearer ${E2E.apiToken}` };

/** Posts a sign-in as a browser on another machine would (its own client IP, same-origin request). */
async function signInRequest(ip: string, email: string, password: string): Promise<{ status: number; retryAfter: string | undefined }> {
  const context = await playwrightRequest.newContext({ baseURL: E2E.baseURL });
  const response = await context.post("/api/auth/sign-in/email", { data: { email, password }, headers: { origin: E2E.baseURL, "x-forwarded-for": ip } });
  const result = { status: response.status(), retryAfter: response.headers()["x-retry-after"] };
  await context.dispose();
  return result;
}

test("the JSON API takes the bearer token or a session; webhooks and the health check need neither", async () => {
  const anonymous = await playwrightRequest.newContext({ baseURL: E2E.baseURL });
  expect((await anonymous.get("/api/orders")).status()).toBe(401);
  expect((await anonymous.get("/api/orders/ord_1041")).status()).toBe(401);
  expect((await anonymous.get("/api/orders", { headers: { authorization: "Bearer wrong-token" } })).status()).toBe(401);
  expect((await anonymous.get("/api/orders/ord_1041", { headers: bearer })).status()).toBe(200);
  expect((await anonymous.get("/api/health")).status()).toBe(200);
  await anonymous.dispose();

  const merchant = await playwrightRequest.newContext({ baseURL: E2E.baseURL, storageState: storageStateOf("merchant") });
  const order = await merchant.get("/api/orders/ord_1041");
  expect(order.status()).toBe(200);
  expect(await order.json()).toMatchObject({ id: "ord_1041", status: "paid", amount: 2_500_000, credited: 2_500_000 });
  // Creating orders is the store's job (token) or an admin's, not a merchant session's.
  expect((await merchant.post("/api/orders", { data: { id: "ord_e2e_by_merchant", amount: 100, currency: "ARS" }, headers: { origin: E2E.baseURL } })).status()).toBe(403);
  await merchant.dispose();

  const admin = await playwrightRequest.newContext({ baseURL: E2E.baseURL, storageState: storageStateOf("admin") });
  // A session cookie alone is not enough to change something: the request must come from the dashboard's origin.
  expect((await admin.post("/api/orders", { data: { id: "ord_e2e_by_admin", amount: 100, currency: "ARS" }, headers: { origin: "https://evil.example" } })).status()).toBe(403);
  expect((await admin.post("/api/orders", { data: { id: "ord_e2e_by_admin", amount: 100, currency: "ARS" }, headers: { origin: E2E.baseURL } })).status()).toBe(201);
  await admin.dispose();
});

test("login attempts are rate-limited per client IP: the 6th attempt in a minute is 429, other IPs unaffected", async () => {
  const { email, password } = demoUser("support");
  const statuses: number[] = [];
  // Failures on an unknown account, so the support account itself never reaches its per-account lockout.
  for (let attempt = 0; attempt < 5; attempt++) statuses.push((await signInRequest("203.0.113.50", "nobody-ip@acredita.test", "not-the-password")).status);
  expect(statuses).toEqual([401, 401, 401, 401, 401]);
  const blocked = await signInRequest("203.0.113.50", email, password);
  expect(blocked.status).toBe(429);
  expect(Number(blocked.retryAfter)).toBeGreaterThan(0);
  expect(Number(blocked.retryAfter)).toBeLessThanOrEqual(60);
  expect((await signInRequest("203.0.113.51", email, password)).status).toBe(200);
  // The buckets live in the database (shared by every server process, kept across restarts).
  expect(query<{ count: number }>("SELECT count FROM RateLimit WHERE key = '203.0.113.50|/sign-in/email'")).toEqual([{ count: 5 }]);
});

test("the sign-in form says when the password is wrong and when attempts are exhausted", async ({ browser }) => {
  const context = await browser.newContext({ extraHTTPHeaders: { "x-forwarded-for": "203.0.113.60" } });
  const page = await context.newPage();
  await page.goto("/sign-in");
  // An unknown account: the merchant's own account must not be locked for the tests that follow.
  await page.getByLabel("Email").fill("nobody-form@acredita.test");
  for (let attempt = 1; attempt <= 5; attempt++) {
    await page.getByLabel("Password").fill(`wrong-password-${attempt}`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("sign-in-error")).toHaveText("Wrong email or password.");
    await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled();
  }
  await page.getByLabel("Email").fill(demoUser("merchant").email);
  await page.getByLabel("Password").fill(demoUser("merchant").password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("sign-in-error")).toContainText("Too many attempts. Try again in");
  await expect(page).toHaveURL(/\/sign-in$/);
  await context.close();
});

test("an anonymous visitor switches the sign-in page to Spanish and back (no server action: proxy.ts refuses those without a session), and signs in from it", async ({ browser }) => {
  const context = await browser.newContext({ extraHTTPHeaders: { "x-forwarded-for": "203.0.113.70" } });
  const page = await context.newPage();
  await page.goto("/sign-in?next=%2Forders");
  await expect(page.getByRole("heading", { name: "Sign in to Acredita" })).toBeVisible();
  await page.getByLabel("Language").selectOption("es-AR");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByRole("heading", { name: "Ingresá a Acredita" })).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in\?next=%2Forders$/);
  await page.getByLabel("Idioma").selectOption("en");
  await page.getByRole("button", { name: "Aplicar" }).click();
  await expect(page.getByRole("heading", { name: "Sign in to Acredita" })).toBeVisible();
  await page.getByLabel("Language").selectOption("es-AR");
  await page.getByRole("button", { name: "Apply" }).click();
  await page.getByLabel("Email").fill(demoUser("merchant").email);
  await page.getByLabel("Contraseña").fill(demoUser("merchant").password);
  await page.getByRole("button", { name: "Ingresar" }).click();
  await expect(page.getByRole("heading", { name: "Órdenes" })).toBeVisible();
  await context.close();
});

test("an admin creates a user and changes roles; the new user signs in; a merchant cannot open the page", async ({ browser }, testInfo) => {
  const admin = await browser.newContext({ storageState: storageStateOf("admin") });
  const page = await admin.newPage();
  await page.goto("/orders");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" }).click();
  await expect(page).toHaveURL(/\/admin\/users$/);
  await page.getByLabel("Email").fill("ines@merchant.test");
  await page.getByLabel("Name").fill("Inés");
  await page.getByLabel("Role", { exact: true }).selectOption("merchant");
  await page.getByLabel("Password (12 to 128 characters, not common)").fill("ines-password-2026");
  await page.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByText("Created ines@merchant.test.")).toBeVisible();
  await expect(page.getByTestId("users-table")).toContainText("ines@merchant.test");

  await page.getByLabel("Change role: ines@merchant.test").selectOption("support");
  await page.getByRole("row", { name: /ines@merchant\.test/ }).getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Role saved; the user's sessions ended.")).toBeVisible();
  expect(query<{ role: string }>("SELECT role FROM User WHERE email = 'ines@merchant.test'")).toEqual([{ role: "support" }]);
  expect(query<{ action: string }>("SELECT action FROM AuditEntry WHERE action LIKE 'user.%' AND note LIKE 'ines@merchant.test%' ORDER BY at").map((row) => row.action)).toEqual(["user.create", "user.role"]);
  // The browser server configures only the lab endpoint (production): the others are listed as not served.
  await expect(page.getByRole("row", { name: /\/api\/webhooks\/lab / })).toContainText("2 (LAB_WEBHOOK_SECRET)");
  await expect(page.getByRole("row", { name: /\/api\/webhooks\/stripe / })).toContainText("not configured: 404 (STRIPE_WEBHOOK_SECRET)");
  await screenshot(page, testInfo, "admin-users");
  await admin.close();

  expect((await signInRequest("203.0.113.70", "ines@merchant.test", "ines-password-2026")).status).toBe(200);

  const merchant = await browser.newContext({ storageState: storageStateOf("merchant") });
  const merchantPage = await merchant.newPage();
  await merchantPage.goto("/orders");
  await expect(merchantPage.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" })).toHaveCount(0);
  await merchantPage.goto("/admin/users");
  await expect(merchantPage.getByText("Your role does not allow this.")).toBeVisible();
  await expect(merchantPage.getByTestId("users-table")).toHaveCount(0);
  await merchant.close();
});

test("signing out ends the session", async ({ browser }) => {
  // A fresh session of its own (signing out revokes it), from its own client IP for the rate limit.
  const context = await browser.newContext({ extraHTTPHeaders: { "x-forwarded-for": "203.0.113.80" } });
  const page = await context.newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(demoUser("merchant").email);
  await page.getByLabel("Password").fill(demoUser("merchant").password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("signed-in-as")).toHaveAttribute("data-role", "merchant");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto("/dead-letters");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fdead-letters$/);
  await context.close();
});
