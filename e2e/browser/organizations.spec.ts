// A person in several organizations: the dashboard's addresses carry the organization (`/o/<slug>/...`),
// the switcher moves between them keeping the section, each shows only its own orders (two organizations
// both have order PW-1, each with its own amount), links, filters and sorting stay in the organization,
// and an organization the person is not in is a 404 however its address is typed. In English and es-AR.
import { randomBytes } from "node:crypto";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { addMembership } from "./support/database";
import { E2E } from "./support/e2e-env";
import { untilHydrated } from "./support/hydration";
import { screenshot, storageStateOf } from "./support/roles";

const run = randomBytes(3).toString("hex");
const NORTH = { slug: `pw-north-${run}`, name: `North Traders ${run}` };
const SOUTH = { slug: `pw-south-${run}`, name: `South Traders ${run}` };
const ELSEWHERE = { slug: `pw-else-${run}`, name: `Elsewhere ${run}` };
const USER = { email: `ana-${run}@orgs.test`, name: "Ana Orgs", password: "violet-harbour-lantern-77" };
const operator = { authorization: `Bearer ${E2E.apiToken}` };

async function createOrganization(request: APIRequestContext, organization: { slug: string; name: string }): Promise<void> {
  const answer = await request.post("/api/orgs", { data: organization, headers: operator });
  expect(answer.status(), await answer.text()).toBe(201);
}

async function createOrderIn(request: APIRequestContext, slug: string, id: string, amount: number): Promise<void> {
  const answer = await request.post("/api/orders", { data: { id, amount, currency: "ARS" }, headers: { ...operator, "acredita-org": slug } });
  expect(answer.status(), await answer.text()).toBe(201);
}

test.beforeAll(async ({ browser, request }) => {
  for (const organization of [NORTH, SOUTH, ELSEWHERE]) await createOrganization(request, organization);
  await createOrderIn(request, NORTH.slug, "PW-1", 150_000);
  await createOrderIn(request, NORTH.slug, "PW-NORTH-ONLY", 2_500);
  await createOrderIn(request, SOUTH.slug, "PW-1", 275_000);
  await createOrderIn(request, ELSEWHERE.slug, "PW-ELSE", 9_900);
  // The admin creates Ana in the Users page (the default organization); she is then made a member of North and South.
  const admin = await browser.newContext({ storageState: storageStateOf("admin") });
  const page = await admin.newPage();
  await page.goto("/admin/users");
  await page.getByLabel("Email").fill(USER.email);
  await page.getByLabel("Name").fill(USER.name);
  await page.getByLabel("Password (12 to 128 characters, not common)").fill(USER.password);
  await page.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByText(`Created ${USER.email}.`)).toBeVisible();
  await admin.close();
  addMembership(USER.email, NORTH.slug, "support");
  addMembership(USER.email, SOUTH.slug, "merchant");
});

test("a person in three organizations switches between them: each address and list is one organization's; another's is 404", async ({ browser }, testInfo) => {
  const context = await browser.newContext({ extraHTTPHeaders: { "x-forwarded-for": "203.0.113.161" }, locale: "en-US" });
  const page = await context.newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(USER.email);
  await page.getByLabel("Password").fill(USER.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${E2E.baseURL}/orders`);

  // The default organization has no PW-1.
  const switcher = page.getByTestId("org-switcher");
  await expect(switcher.locator("summary")).toHaveText("Organization: Default organization");
  await page.goto("/orders?q=PW-");
  await expect(page.locator('[data-order-id="PW-1"]')).toHaveCount(0);

  // North: its address, its PW-1 (1.500,00 ARS as money, never minor units) and its own order.
  await switcher.locator("summary").click();
  await switcher.getByRole("link", { name: NORTH.name }).click();
  await expect(page).toHaveURL(`${E2E.baseURL}/o/${NORTH.slug}/orders`);
  await expect(switcher.locator("summary")).toHaveText(`Organization: ${NORTH.name}`);
  await expect(page.getByTestId("signed-in-as")).toHaveAttribute("data-role", "support");
  const northRow = page.locator('[data-order-id="PW-1"]');
  await expect(northRow).toContainText("1,500.00");
  await expect(page.locator('[data-order-id="PW-NORTH-ONLY"]')).toHaveCount(1);
  await screenshot(page, testInfo, "organizations-north-orders");

  // A filter and a sort keep the organization in the address.
  await page.getByLabel("Search orders").fill("PW-");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(new RegExp(`/o/${NORTH.slug}/orders\\?.*q=PW-`));
  await untilHydrated(page.getByRole("button", { name: "Amount" }));
  await page.getByRole("button", { name: "Amount" }).click();
  await expect(page).toHaveURL(new RegExp(`/o/${NORTH.slug}/orders\\?.*sort=amount`));
  await expect(page.locator('[data-order-id="PW-1"]')).toContainText("1,500.00");

  // The order's page, then the navigation, stay in North.
  await page.locator('[data-order-id="PW-1"]').getByRole("link", { name: "PW-1" }).click();
  await expect(page).toHaveURL(`${E2E.baseURL}/o/${NORTH.slug}/orders/PW-1`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("PW-1");
  await expect(page.locator("main")).toContainText("1,500.00");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Decision log" }).click();
  await expect(page).toHaveURL(`${E2E.baseURL}/o/${NORTH.slug}/decisions`);

  // South, from the order's page: the same section, South's PW-1, and North's own order is not there.
  await page.goto(`/o/${NORTH.slug}/orders/PW-1`);
  await switcher.locator("summary").click();
  await switcher.getByRole("link", { name: SOUTH.name }).click();
  await expect(page).toHaveURL(`${E2E.baseURL}/o/${SOUTH.slug}/orders`);
  await expect(page.getByTestId("signed-in-as")).toHaveAttribute("data-role", "merchant");
  await expect(page.locator('[data-order-id="PW-1"]')).toContainText("2,750.00");
  await expect(page.locator('[data-order-id="PW-NORTH-ONLY"]')).toHaveCount(0);
  await screenshot(page, testInfo, "organizations-south-orders");

  // Typed addresses: North's order under South is South's 404; an organization she is not in, and one
  // that does not exist, are the same 404; nothing of Elsewhere shows.
  for (const path of [`/o/${SOUTH.slug}/orders/PW-NORTH-ONLY`, `/o/${ELSEWHERE.slug}/orders`, `/o/${ELSEWHERE.slug}/orders/PW-ELSE`, `/o/pw-nowhere-${run}/orders`]) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(404);
    // The 404 page repeats the address typed, and nothing of Elsewhere's books (its order's 99.00, its name).
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.locator("main")).not.toContainText("99.00");
    await expect(page.locator("body")).not.toContainText(ELSEWHERE.name);
  }
  // Its API, by address or by header, is as closed.
  const api = await page.request.get(`/o/${ELSEWHERE.slug}/api/orders`);
  expect(api.status()).toBe(404);
  const header = await page.request.get("/api/orders", { headers: { "acredita-org": ELSEWHERE.slug } });
  expect(header.status()).toBe(404);
  // South's own download carries South's orders only.
  const csv = await page.request.get(`/o/${SOUTH.slug}/api/exports/orders.csv?q=PW-`);
  expect(csv.status()).toBe(200);
  const lines = (await csv.text()).trim().split("\n");
  expect(lines.slice(1).map((line) => line.split(",")[0])).toEqual(["PW-1"]);
  await context.close();
});

test("es-AR: the switcher speaks the reader's language and money is formatted for it", async ({ browser }, testInfo) => {
  const context = await browser.newContext({ extraHTTPHeaders: { "x-forwarded-for": "203.0.113.162" }, locale: "es-AR" });
  const page = await context.newPage();
  await page.goto("/sign-in");
  await page.locator("input[type=email]").fill(USER.email);
  await page.locator("input[type=password]").fill(USER.password);
  await page.getByRole("button", { name: "Ingresar" }).click();
  await expect(page.getByTestId("signed-in-as")).toBeVisible();
  await page.goto(`/o/${NORTH.slug}/orders?q=PW-1`);
  const switcher = page.getByTestId("org-switcher");
  await expect(switcher.locator("summary")).toHaveText(`Organización: ${NORTH.name}`);
  await expect(switcher.locator("summary")).toHaveAttribute("aria-label", "Cambiar de organización");
  await expect(page.locator('[data-order-id="PW-1"]')).toContainText("1.500,00");
  await switcher.locator("summary").click();
  await expect(switcher.getByRole("list", { name: "Tus organizaciones" }).getByRole("link")).toHaveText(["Default organization", NORTH.name, SOUTH.name]);
  await screenshot(page, testInfo, "organizations-es-ar");
  await context.close();
});
