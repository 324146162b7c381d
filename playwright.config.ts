// Browser tests in Debian's Chromium (never `npx playwright install`) against the BUILT app, started by
// scripts/e2e-server.ts on 127.0.0.1 with its own fresh database: SQLite in a temporary folder, or a new
// database on the PostgreSQL test cluster (TEST_DATABASE=postgres; see e2e/browser/support/e2e-env.ts).
import { defineConfig } from "@playwright/test";
import { E2E } from "./e2e/browser/support/e2e-env";

export default defineConfig({
  testDir: "e2e/browser",
  outputDir: "test-results/browser",
  // One worker: the specs share one server and database, and several assert exact counts.
  workers: 1,
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
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
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
    env: {
      PORT: String(E2E.port),
      DATABASE_URL: E2E.databaseUrl,
      AUTH_BASE_URL: E2E.baseURL,
      AUTH_SECRET: E2E.authSecret,
      AUTH_LOGIN_MAX_ATTEMPTS: "5",
      AUTH_LOGIN_WINDOW_SECONDS: "60",
      // The specs stand in for several clients behind a proxy on 127.0.0.1: each sends its own X-Forwarded-For.
      TRUSTED_PROXIES: "127.0.0.1",
      API_TOKEN: E2E.apiToken,
      ACREDITA_SECRETS_KEY: E2E.secretsKey,
      // Two active secrets and a retired one, so the Endpoints page has a rotation to show.
      LAB_WEBHOOK_SECRET: `${E2E.labSecret},${E2E.labOldSecret}`,
      LAB_WEBHOOK_RETIRED_SECRETS: E2E.labRetiredSecret,
      // Small enough for the reconciliation spec to go over it with a 21 MB file (the default is 200 MB).
      RECONCILIATION_UPLOAD_MAX_BYTES: "20971520",
      LOG_LEVEL: "warn",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  },
});
