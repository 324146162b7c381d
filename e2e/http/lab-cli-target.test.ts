// slow-test: starts built servers on other ports and plays the lab against them, one target silent on purpose
// `npm run lab` finds its server the way an operator expects: --url, else PORT (what `npm start`
// listens on), else 3000; and when nobody answers there it says so and how to start one (exit 2).
// The lab's main runs in this process, against a built server.
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { closedPort } from "../support/merchant";
import { freshDatabaseUrl, startServer, type RunningServer } from "../support/server";
import { runMain } from "../support/cli";
import { main as labCli } from "@/scripts/lab";

const SECRET = "lab_target_secret_0001";
const TOKEN = "lab-target-token-0123456789abcdef-0001";
const HINT = "Start one in another terminal with `npm run demo` (or `npm start`), or point the lab at a running server with --url <url> or PORT.";
let server: RunningServer;
const databaseUrl = freshDatabaseUrl();

before(async () => {
  server = await startServer({ DATABASE_URL: databaseUrl, LAB_WEBHOOK_SECRET: SECRET, API_TOKEN: TOKEN });
});
after(() => server.stop());

/** Runs the lab's main as `npm run lab --allow-production` does (the test server runs in production mode), with `env` added (PORT unset unless given). */
function lab(args: string[], env: Record<string, string>) {
  const { PORT: _port, ...inherited } = process.env;
  return runMain(labCli, ["--allow-production", ...args], { ...inherited, LAB_WEBHOOK_SECRET: SECRET, API_TOKEN: TOKEN, DATABASE_URL: databaseUrl, ...env });
}

test("PORT alone points the lab at the server on that port", async () => {
  const run = await lab([], { PORT: String(server.port) });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.split("\n")[0], `Lab provider -> http://127.0.0.1:${server.port}/api/webhooks/lab`);
});

test("--url wins over PORT", async () => {
  const run = await lab(["--url", server.url], { PORT: String(await closedPort()) });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.split("\n")[0], `Lab provider -> ${server.url}/api/webhooks/lab`);
  // Not the server this environment describes: its settlement goes to a folder of its own, never over the local server's.
  const folder = path.join("data", "lab", `127.0.0.1-${server.port}`);
  try {
    assert.ok(run.stdout.includes(`\nSettlement written to ${path.join(folder, "settlement.csv")}. Reconciliation (run `), run.stdout);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("when no server answers on PORT: one sentence saying so and how to start one, exit 2, nothing sent", async () => {
  const port = await closedPort();
  const run = await lab([], { PORT: String(port) });
  assert.equal(run.code, 2);
  assert.equal(run.stdout, "");
  assert.equal(run.stderr, `lab: no server answers at http://127.0.0.1:${port} (connection refused). ${HINT}\n`);
});

test("when no server answers at --url, and for a --url without a value", async () => {
  const port = await closedPort();
  const refused = await lab(["--url", `http://127.0.0.1:${port}/`], {});
  assert.equal(refused.code, 2);
  assert.equal(refused.stderr, `lab: no server answers at http://127.0.0.1:${port} (connection refused). ${HINT}\n`);
  const empty = await lab(["--url"], {});
  assert.equal(empty.code, 2);
  assert.equal(empty.stderr, "lab: --url needs a value, e.g. --url http://127.0.0.1:3000\n");
});
