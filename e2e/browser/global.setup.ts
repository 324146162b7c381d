// Runs before every spec: checks the target is local, plays the lab's five deliveries against the test
// server over HTTP (the same runLab as `npm run lab --url`), and signs in once per role through the form.
import { expect, test as setup } from "@playwright/test";
import { ROLES } from "@/lib/auth/roles";
import { runLab } from "@/lib/lab/run-lab";
import { assertLocalTarget, E2E } from "./support/e2e-env";
import { screenshot, signIn, storageStateOf } from "./support/roles";

setup("the target is the local throwaway server", () => {
  assertLocalTarget();
  expect(() => assertLocalTarget("https://acredita.example.com")).toThrow(/local servers only/);
  expect(() => assertLocalTarget(E2E.baseURL, "/var/lib/acredita/acredita.db")).toThrow(/outside/);
  expect(() => assertLocalTarget(E2E.baseURL, "postgresql://acredita@db.example.com:5432/acredita_e2e_browser_0a1b2c")).toThrow(/outside the local test cluster/);
  expect(() => assertLocalTarget(E2E.baseURL, "postgresql://acredita@127.0.0.1:5432/acredita")).toThrow(/outside the local test cluster/);
});

setup("the lab's five deliveries reach the test server", async () => {
  const run = await runLab({ url: E2E.baseURL, apiToken: E2E.apiToken, secret: E2E.labSecret, msPerSimulatedMinute: 10 });
  const statuses = run.deliveries.map((delivery) => `${delivery.eventId}:${delivery.status}:${delivery.outcome}`);
  // The two concurrent deliveries of evt_0002 answer in either order: one applied, one duplicate.
  expect(statuses.slice(2, 4).sort()).toEqual(["evt_0002:200:applied", "evt_0002:200:duplicate"]);
  expect([...statuses.slice(0, 2), ...statuses.slice(4)]).toEqual([
    "evt_0001:200:applied",
    "evt_0001:200:duplicate",
    "evt_0003:200:applied",
    "evt_9999:401:rejected",
    "evt_0005:409:dead_lettered",
    "evt_0004:200:applied",
    "evt_0005:200:applied",
    "evt_0003:401:rejected",
  ]);
  expect(run.report.mismatches).toEqual([]);
});

setup("a signed-out visitor is sent to the sign-in page, which remembers the page asked for", async ({ page }, testInfo) => {
  await page.goto("/orders");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Forders$/);
  await expect(page.getByRole("heading", { name: "Sign in to Acredita" })).toBeVisible();
  await screenshot(page, testInfo, "sign-in");
});

for (const role of ROLES) {
  setup(`sign in as ${role}`, async ({ page }) => {
    await signIn(page, role);
    await page.context().storageState({ path: storageStateOf(role) });
  });
}
