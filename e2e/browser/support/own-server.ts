// A browser-test server of a spec's own: the same built app, configuration and seed as the shared server
// (scripts/e2e-server.ts, support/e2e-env.ts), on its own port with its own fresh database. For the specs
// whose subject is a figure of the whole server (an endpoint's last delivery and 24-hour totals, the
// review queue's empty state, the lab's reconciliation scope, which takes every order the lab credited):
// other specs running beside them on the shared server would change it. Every other spec shares the one
// server and asserts only on the rows it seeded under its own ids.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, request as playwrightRequest, test as base } from "@playwright/test";
import type { Role } from "@/lib/auth/roles";
import { freePort } from "@/lib/net/free-port";
import { newPostgresTestDatabase } from "../../support/postgres-test-database";
import { databaseOf, type E2EDatabase } from "./database";
import { E2E, serverEnvironment } from "./e2e-env";
import { demoUser } from "./roles";

/** A running server of a spec's own. */
export interface OwnServer {
  url: string;
  database: E2EDatabase;
  /** The reads and seeding writes of support/database.ts, on this server's database. */
  db: ReturnType<typeof databaseOf>;
  /** The path of a browser state signed in as `role` on this server (signed in through the auth API once per role). */
  storageStateOf(role: Role): Promise<string>;
  /** Sends the server's process group SIGTERM. */
  stop(): void;
}

/** A fresh database of the shared server's kind: a new file under the OS temp folder, or a new PostgreSQL test database. */
async function freshDatabase(label: string): Promise<E2EDatabase> {
  if (E2E.databaseUrl.startsWith("postgres")) {
    const adminUrl = process.env.TEST_POSTGRES_URL;
    if (!adminUrl) throw new Error("the shared server is on PostgreSQL but TEST_POSTGRES_URL is not set");
    return { url: await newPostgresTestDatabase(adminUrl, "e2e_browser") };
  }
  const file = path.join(mkdtempSync(path.join(tmpdir(), `acredita-e2e-own-${label}-`)), "acredita.db");
  return { url: `file:${file}`, file };
}

/**
 * Starts scripts/e2e-server.ts in its own process group on a free port with a fresh database (`label`
 * names its folder and its saved sign-ins; `extraEnv` adds settings of its own) and waits up to 90 s for /api/health. Throws, with the end of
 * the server's stderr, when it exits or does not answer in time.
 */
export async function startOwnServer(label: string, extraEnv: Record<string, string> = {}): Promise<OwnServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const database = await freshDatabase(label);
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/e2e-server.ts"], {
    env: { ...process.env, ...serverEnvironment(port, database.url), ...extraEnv },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGTERM");
  };
  try {
    await expect(async () => {
      expect(child.exitCode, `the server exited: ${stderr}`).toBeNull();
      expect((await fetch(`${url}/api/health`)).status).toBe(200);
    }).toPass({ timeout: 90_000, intervals: [250] });
  } catch (error) {
    stop();
    throw error;
  }
  const signedIn = new Map<Role, Promise<string>>();
  const signIn = async (role: Role): Promise<string> => {
    const user = demoUser(role);
    const context = await playwrightRequest.newContext({ baseURL: url });
    try {
      const response = await context.post("/api/auth/sign-in/email", { data: { email: user.email, password: user.password }, headers: { origin: url } });
      expect(response.status(), `sign in as ${role} on ${url}`).toBe(200);
      const file = path.join("test-results", "browser-auth", `own-${label}-${role}.json`);
      await context.storageState({ path: file });
      return file;
    } finally {
      await context.dispose();
    }
  };
  return {
    url,
    database,
    db: databaseOf(database),
    storageStateOf: (role) => {
      if (!signedIn.has(role)) signedIn.set(role, signIn(role));
      return signedIn.get(role)!;
    },
    stop,
  };
}

/**
 * Playwright's `test` for a spec file on a server of its own: `own` (started once per worker, stopped
 * when the worker ends) is the base URL of every page, context and request, and the option `role`
 * signs them in (none: signed out). `extraEnv`: settings this spec's server adds to the shared ones.
 */
export function testOnOwnServer(label: string, extraEnv: Record<string, string> = {}) {
  return base.extend<{ role: Role | undefined }, { own: OwnServer }>({
    own: [
      async ({}, use) => {
        const server = await startOwnServer(label, extraEnv);
        try {
          await use(server);
        } finally {
          server.stop();
        }
      },
      { scope: "worker", timeout: 120_000 },
    ],
    role: [undefined, { option: true }],
    baseURL: async ({ own }, use) => use(own.url),
    storageState: async ({ own, role }, use) => use(role ? await own.storageStateOf(role) : undefined),
  });
}
