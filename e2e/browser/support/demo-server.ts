// A server in demo mode (`npm run demo` on a fresh SQLite file, on its own port): the shared browser-test
// server runs in production, and some pages are only seen in the demo. One per worker, shared by every
// spec's demo tests (`testOnDemoServer`): each start costs seconds, and the demo tests assert only on
// their own rows and on what the demo's configuration shows.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test as base } from "@playwright/test";
import { freePort } from "@/lib/net/free-port";

/**
 * Starts `scripts/start.ts --demo` in its own process group and waits (up to 90 s) until it answers
 * /api/health. Returns its URL and a stop that sends the whole group SIGTERM. `label` names its folder.
 */
export async function startDemoServer(label: string): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const database = `file:${path.join(mkdtempSync(path.join(tmpdir(), `acredita-e2e-${label}-`)), "acredita.db")}`;
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts", "--demo"], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NEXT_TELEMETRY_DISABLED: "1", PORT: String(port), DATABASE_URL: database, LOG_LEVEL: "warn" } as unknown as NodeJS.ProcessEnv,
    stdio: "ignore",
    detached: true,
  });
  const stop = () => process.kill(-child.pid!, "SIGTERM");
  try {
    await expect(async () => expect((await fetch(`${url}/api/health`)).status).toBe(200)).toPass({ timeout: 90_000, intervals: [250] });
  } catch (error) {
    stop();
    throw error;
  }
  return { url, stop };
}

/**
 * Playwright's `test` with `demo`: a demo server started once per worker (stopped when the worker
 * ends), its URL for the tests to use. Every spec's demo tests use this one object, so Playwright runs
 * them one after another in the same worker (tests are grouped by their worker fixtures): one start
 * for all of them.
 */
export const testOnDemoServer = base.extend<object, { demo: { url: string } }>({
  demo: [
    async ({}, use) => {
      const { url, stop } = await startDemoServer("shared");
      try {
        await use({ url });
      } finally {
        stop();
      }
    },
    { scope: "worker", timeout: 120_000 },
  ],
});
