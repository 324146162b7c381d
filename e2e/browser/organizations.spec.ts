// A person in several organizations: the dashboard's addresses carry the organization (`/o/<slug>/...`),
// the switcher moves between them keeping the section, each shows only its own orders (two organizations
// both have order PW-1, each with its own amount), links, filters and sorting stay in the organization,
// and an organization the person is not in is a 404 however its address is typed. In English and es-AR.
import { randomBytes } from "node:crypto";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { addMembership, query } from "./support/database";
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

test("a server action of one organization's page, posted to another organization's address, acts nowhere", async ({ browser, request }) => {
  // West: another organization where Ana is support too. North gets a lab endpoint, and a payment for
  // an order North does not have becomes North's dead letter.
  const WEST = { slug: `pw-west-${run}`, name: `West Traders ${run}` };
  await createOrganization(request, WEST);
  addMembership(USER.email, WEST.slug, "support");
  const endpoint = await request.post("/api/endpoints", { headers: { ...operator, "acredita-org": NORTH.slug }, data: { provider: "lab", account: `lab_pw_${run}`, livemode: true, processingMode: "inline" } });
  expect(endpoint.status(), await endpoint.text()).toBe(201);
  const { id, secret } = (await endpoint.json()) as { id: string; secret: string };
  const eventId = `evt_pw_${run}`;
  const body = JSON.stringify({ id: eventId, type: "payment.approved", created: 1760181330, data: { payment_id: `pay_pw_${run}`, order_id: "PW-MISSING", amount: 100, currency: "ARS" } });
  const delivered = await request.post(`/api/webhooks/${id}`, { data: body, headers: { "content-type": "application/json", "Lab-Signature": signTimestamped(secret, Math.floor(Date.now() / 1000), body) } });
  expect(((await delivered.json()) as { outcome: string }).outcome).toBe("dead_lettered");
  const owner = () => query<{ owner: string | null }>("SELECT owner FROM DeadLetter WHERE eventId = ?", eventId)[0]?.owner ?? null;

  const context = await browser.newContext({ extraHTTPHeaders: { "x-forwarded-for": "203.0.113.163" }, locale: "en-US" });
  const page = await context.newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(USER.email);
  await page.getByLabel("Password").fill(USER.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("signed-in-as")).toBeVisible();
  await page.goto(`/o/${NORTH.slug}/dead-letters`);
  // Capture the "Assign to me" action North's page builds (Next-Action and its body), and stop it.
  const captured = new Promise<{ headers: Record<string, string>; body: Buffer }>((resolve) => {
    void page.route(`**/o/${NORTH.slug}/dead-letters**`, (route) => {
      const sent = route.request();
      if (sent.method() !== "POST" || !sent.headers()["next-action"]) return route.continue();
      resolve({ headers: sent.headers(), body: sent.postDataBuffer() ?? Buffer.alloc(0) });
      return route.abort();
    });
  });
  const row = page.locator(`[data-event-id="${eventId}"]`).first();
  await untilHydrated(row.getByRole("button", { name: `Assign to me: ${eventId}` }));
  await row.getByRole("button", { name: `Assign to me: ${eventId}` }).click();
  const action = await captured;
  expect(action.headers["next-action"]).toMatch(/^[0-9a-f]{40,}$/);

  // The same action, with Ana's cookies and North's dead letter id, posted to West (where she may manage
  // dead letters) and to Elsewhere (where she is no member): neither touches North's dead letter.
  const replay = (slug: string) => context.request.post(`${E2E.baseURL}/o/${slug}/dead-letters`, { headers: { ...action.headers, origin: E2E.baseURL }, data: action.body, maxRedirects: 0 });
  for (const slug of [WEST.slug, ELSEWHERE.slug]) {
    await replay(slug);
    expect(owner(), slug).toBeNull();
  }
  // At North's own address the captured action is what it was: it assigns.
  const own = await replay(NORTH.slug);
  expect(own.status()).toBe(200);
  expect(owner()).toBe(USER.email);
  await context.close();
});
