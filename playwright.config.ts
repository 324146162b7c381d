// Browser tests in Debian's Chromium (never `npx playwright install`) against the BUILT app, started by
// scripts/e2e-server.ts on 127.0.0.1 with its own fresh database: SQLite in a temporary folder, or a new
// database on the PostgreSQL test cluster (TEST_DATABASE=postgres; see e2e/browser/support/e2e-env.ts).
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { defineConfig } from "@playwright/test";
import { E2E, serverEnvironment } from "./e2e/browser/support/e2e-env";

/**
 * The browser binary: Debian's Chromium headless shell (package chromium-headless-shell, the same
 * Chromium 156 without the browser's UI), else the full Chromium. Measured on four specs (25 tests):
 * Chromium's processes used 67 CPU s with the full browser, 22 with the headless shell, and the specs
 * took 86 s instead of 53 s. E2E_CHROMIUM names another (e.g. /usr/bin/chromium for `--headed`).
 */
const CHROMIUM = process.env.E2E_CHROMIUM ?? (existsSync("/usr/bin/chromium-headless-shell") ? "/usr/bin/chromium-headless-shell" : "/usr/bin/chromium");

export default defineConfig({
  testDir: "e2e/browser",
  outputDir: "test-results/browser",
  // Specs seed under their own ids and assert only on their own rows (a figure of the whole server, or a
  // page whose rows others would move: a server of the spec's own, support/own-server.ts), so two can
  // run at a time; they do on a machine of 4 cores or more. On 2 cores the browser pass already shares
  // them with the node stages (npm test runs them beside it): two workers made it slower (2026-12-02: browser 441 s -> 524 s,
  // the PostgreSQL pass 307 s -> 557 s, walk-es-ar.spec.ts 41 s -> 123 s). The tests of one file run in order.
  workers: availableParallelism() >= 4 ? 2 : 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  use: {
    baseURL: E2E.baseURL,
    browserName: "chromium",
    locale: "en-US",
    timezoneId: "UTC",
    screenshot: "only-on-failure",
    // No trace: recording one for every test (to keep it on a failure) cost about a fifth of the pass's
    // CPU (2026-12-03, 14 specs: 67 s -> 54 s); the screenshot above stays. To debug a failure, run its
    // spec again with `--trace=retain-on-failure`.
    trace: "off",
    launchOptions: {
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    },
  },
  projects: [
    { name: "setup", testMatch: /global\.setup\.ts/ },
    { name: "chromium", testMatch: /\.spec\.ts/, dependencies: ["setup"] },
  ],
  webServer: {
    command: `"${process.execPath}" --import tsx scripts/e2e-server.ts`,
    url: `${E2E.baseURL}/api/health`,
    reuseExistingServer: false,
    timeout: 90_000,
    stdout: "ignore",
    stderr: "pipe",
    env: serverEnvironment(E2E.port, E2E.databaseUrl),
  },
});
