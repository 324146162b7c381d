// A server of the spec's own in demo mode (`npm run demo` on a fresh SQLite file, on its own port): the
// shared browser-test server runs in production, and some pages are only seen in the demo.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "@playwright/test";
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
