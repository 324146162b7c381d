// Access control in Chromium: an admin deactivates a user and manages API keys in the page (the key
// shown once, refused once revoked), a weak password is refused with its reason, and the audit log
// lists and filters it all. (That the sign-in `next` never leaves the site, the tab trick included:
// deep-links.spec.ts.)
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { query } from "./support/database";
import { E2E } from "./support/e2e-env";
import { demoUser, screenshot, storageStateOf } from "./support/roles";

test("an admin creates an API key in the page (shown once), it acts with the owner's role, and revoking it ends it", async ({ browser }) => {
  const admin = await browser.newContext({ storageState: storageStateOf("admin") });
  const page = await admin.newPage();
  await page.goto("/admin/users");
  await page.getByLabel("Owner").selectOption({ label: `${demoUser("merchant").email} (merchant)` });
  await page.getByLabel("Key label").fill("shop reader");
  await page.getByLabel("Valid for (days)").fill("30");
  await page.getByRole("button", { name: "Create API key" }).click();
  const shown = page.getByTestId("new-api-key");
  await expect(shown).toHaveText(/^acr_[A-Za-z0-9_-]{43}$/);
  const key = (await shown.textContent())!;
  expect(query<{ n: number }>("SELECT COUNT(*) AS n FROM ApiKey WHERE keyHash = ?", key)).toEqual([{ n: 0 }]);

  const client = await playwrightRequest.newContext({ baseURL: E2E.baseURL, extraHTTPHeaders: { authorization: `Bearer ${key}` } });
  expect((await client.get("/api/orders")).status()).toBe(200);
  expect((await client.post("/api/orders", { data: { id: "ord_by_merchant_key", amount: 100, currency: "ARS" } })).status()).toBe(403);

  await page.reload();
  const row = page.getByTestId("api-keys-table").getByRole("row", { name: /shop reader/ });
  await expect(row).toContainText(key.slice(0, 10));
  await expect(row).not.toContainText(key.slice(10));
  await expect(row).toContainText("Active");
  await row.getByRole("button", { name: "Revoke: shop reader" }).click();
  await expect(row).toContainText("Revoked");
  await expect(row.getByRole("button", { name: "Revoke: shop reader" })).toHaveCount(0);
  expect((await client.get("/api/orders")).status()).toBe(401);
  await client.dispose();
  await admin.close();
});

test("an admin deactivates a user in the page: the user's open session ends; a weak password is refused with its reason", async ({ browser }) => {
  const admin = await browser.newContext({ storageState: storageStateOf("admin") });
  const page = await admin.newPage();
  await page.goto("/admin/users");
  await page.getByLabel("Email").fill("weak@merchant.test");
  await page.getByLabel("Name").fill("Weak");
  await page.getByLabel("Password (12 to 128 characters, not common)").fill("password1234");
  await page.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByText("password: too weak (strength 1 of 4, 3 needed): This is similar to a commonly used password.")).toBeVisible();
  expect(query<{ n: number }>("SELECT COUNT(*) AS n FROM User WHERE email = 'weak@merchant.test'")).toEqual([{ n: 0 }]);
  // The refusal keeps what was typed: only the password needs changing.
  await expect(page.getByLabel("Email")).toHaveValue("weak@merchant.test");
  await expect(page.getByLabel("Name")).toHaveValue("Weak");

  await page.getByLabel("Email").fill("dora@merchant.test");
  await page.getByLabel("Name").fill("Dora");
  await page.getByLabel("Password (12 to 128 characters, not common)").fill("amber-kettle-meadow-41");
  await page.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByText("Created dora@merchant.test.")).toBeVisible();
  await expect(page.getByLabel("Email")).toHaveValue("");

  const dora = await browser.newContext({ extraHTTPHeaders: { "x-forwarded-for": "203.0.113.91" } });
  const doraPage = await dora.newPage();
  // Signed in through the auth API (the form is auth.spec.ts's subject; it refuses her below); the cookie is the context's.
  expect((await doraPage.request.post("/api/auth/sign-in/email", { data: { email: "dora@merchant.test", password: "amber-kettle-meadow-41" }, headers: { origin: E2E.baseURL } })).status()).toBe(200);
  await doraPage.goto("/orders");
  await expect(doraPage.getByTestId("signed-in-as")).toHaveAttribute("data-role", "merchant");

  await page.reload();
  await page.getByRole("button", { name: "Deactivate: dora@merchant.test" }).click();
  await expect(page.getByText("User deactivated; their sessions ended and their API keys stop working.")).toBeVisible();
  await expect(page.getByTestId("status-dora@merchant.test")).toContainText("Deactivated");
  await doraPage.goto("/orders");
  await expect(doraPage).toHaveURL(/\/sign-in/);
  await doraPage.getByLabel("Email").fill("dora@merchant.test");
  await doraPage.getByLabel("Password").fill("amber-kettle-meadow-41");
  await doraPage.getByRole("button", { name: "Sign in" }).click();
  await expect(doraPage.getByTestId("sign-in-error")).toHaveText("This account is deactivated.");
  await dora.close();

  // This spec's own rows: the audit log searched by the user's e-mail (other specs write audit rows too).
  await page.goto("/admin/audit?action=user.deactivate&target=dora%40merchant.test");
  const audit = page.getByTestId("audit-table");
  await expect(audit.getByRole("row")).toHaveCount(2);
  await expect(audit).toContainText(demoUser("admin").email);
  await expect(audit).toContainText("dora@merchant.test");
  await expect(audit.locator('tr[data-action="user.deactivate"] td').nth(2)).toHaveText("User deactivated");
  // The key this spec revoked (the test before), searched by its id.
  const [key] = query<{ id: string }>("SELECT id FROM ApiKey WHERE name = 'shop reader'");
  await page.getByLabel("Action").selectOption("api_key.revoke");
  await page.getByLabel("Event, order or payment id").fill(key.id);
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/audit\\?actor=&action=api_key\\.revoke&target=${key.id}(&|$)`));
  await expect(page.getByTestId("audit-table").getByRole("row")).toHaveCount(2);
  await admin.close();
});

test("a user changes their password in the page: a weak one is refused with its reason, and their other browser is signed out", async ({ browser }) => {
  const admin = await browser.newContext({ storageState: storageStateOf("admin") });
  const page = await admin.newPage();
  await page.goto("/admin/users");
  await page.getByLabel("Email").fill("pat@merchant.test");
  await page.getByLabel("Name").fill("Pat");
  await page.getByLabel("Password (12 to 128 characters, not common)").fill("granite-willow-cipher-7");
  await page.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByText("Created pat@merchant.test.")).toBeVisible();
  await admin.close();

  const browsers = await Promise.all(["203.0.113.92", "203.0.113.93"].map((ip) => browser.newContext({ extraHTTPHeaders: { "x-forwarded-for": ip } })));
  const [laptop, phone] = await Promise.all(browsers.map((context) => context.newPage()));
  // Signed in through the auth API, one session per browser (the form is auth.spec.ts's subject).
  for (const tab of [laptop, phone]) {
    expect((await tab.request.post("/api/auth/sign-in/email", { data: { email: "pat@merchant.test", password: "granite-willow-cipher-7" }, headers: { origin: E2E.baseURL } })).status()).toBe(200);
  }
  await laptop.goto("/orders");
  await expect(laptop.getByTestId("signed-in-as")).toHaveAttribute("data-role", "merchant");
  await laptop.getByRole("link", { name: "Password" }).click();
  await expect(laptop).toHaveURL(/\/account\/password$/);
  await laptop.getByLabel("Current password").fill("granite-willow-cipher-7");
  await laptop.getByLabel("New password (12 to 128 characters)").fill("qwertyuiop12");
  await laptop.getByRole("button", { name: "Change password" }).click();
  await expect(laptop.getByTestId("password-result")).toHaveText(/^Password too weak \(strength \d of 4, 3 needed\): \S/);
  await laptop.getByLabel("New password (12 to 128 characters)").fill("saffron-glacier-tunnel-88");
  await laptop.getByRole("button", { name: "Change password" }).click();
  await expect(laptop.getByTestId("password-result")).toHaveText("Password changed; your other sessions ended.");
  await laptop.goto("/orders");
  await expect(laptop.getByTestId("signed-in-as")).toHaveAttribute("data-role", "merchant");
  await phone.goto("/orders");
  await expect(phone).toHaveURL(/\/sign-in/);
  await Promise.all(browsers.map((context) => context.close()));
});

test("a page the role may not open answers 403 inside the dashboard frame, in English and es-AR", async ({ browser }, testInfo) => {
  for (const [locale, title, text, back, navigation] of [
    ["en-US", "Not allowed", "Your role does not allow this.", "Go to orders", "Main"],
    ["es-AR", "Sin permiso", "Tu rol no permite esta acción.", "Ir a órdenes", "Principal"],
  ] as const) {
    const context = await browser.newContext({ storageState: storageStateOf("merchant"), locale });
    const page = await context.newPage();
    for (const path of ["/endpoints", "/admin/users", "/admin/audit"]) {
      const response = await page.goto(path);
      expect(response?.status(), `${locale} ${path}`).toBe(403);
      const problem = page.getByTestId("problem");
      await expect(problem).toHaveAttribute("data-code", "403");
      await expect(problem.getByRole("heading", { level: 1 })).toHaveText(title);
      await expect(problem.getByTestId("not-allowed")).toHaveText(text);
      await expect(problem).toContainText(locale === "en-US" ? `Your role (merchant) cannot open ${path}.` : `Tu rol (comercio) no puede abrir ${path}.`);
      await expect(problem.getByRole("link", { name: back })).toHaveAttribute("href", "/orders");
      // Inside the frame: the main navigation is still there.
      await expect(page.getByRole("navigation", { name: navigation })).toBeVisible();
    }
    await screenshot(page, testInfo, `forbidden-${locale}`);
    await context.close();
  }
});
