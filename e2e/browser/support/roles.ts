import path from "node:path";
import { expect, type Page, type TestInfo } from "@playwright/test";
import { TEST_ROLE_USERS } from "@/lib/demo/demo-accounts";
import type { Role } from "@/lib/auth/roles";

/** Where the setup project stores each role's signed-in browser state (cookies). */
export function storageStateOf(role: Role): string {
  return path.join("test-results", "browser-auth", `${role}.json`);
}

/** The browser server's user of `role` (the demo account with a private password: the server runs in production). */
export function demoUser(role: Role) {
  const user = TEST_ROLE_USERS.find((candidate) => candidate.role === role);
  if (!user) throw new Error(`no demo user for ${role}`);
  return user;
}

/** Signs in through the form and waits for the dashboard to greet the user with their role. */
export async function signIn(page: Page, role: Role): Promise<void> {
  const user = demoUser(role);
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("signed-in-as")).toHaveAttribute("data-role", role);
}

/**
 * Saves a full-page screenshot as <output>/screenshots/<name>.png (one per page, for review), unless
 * E2E_SCREENSHOTS=0: npm test sets it, since the 74 of them assert nothing and cost about 0.3 s of
 * Chromium each (a failing test still leaves its own screenshot, playwright.config.ts).
 */
export async function screenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  if (process.env.E2E_SCREENSHOTS === "0") return;
  await page.screenshot({ path: path.join(testInfo.project.outputDir, "screenshots", `${name}.png`), fullPage: true });
}
