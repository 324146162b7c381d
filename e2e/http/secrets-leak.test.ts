// Hardening: the whole lab against the production build, then a search for every secret and
// every signature sent in everything the product wrote or showed: each log line (LOG_FILE), the
// server's stdout/stderr, the SQLite file and its WAL (before and after a checkpoint; on PostgreSQL
// every row instead), every row of every table, and every page and API response the test can fetch.
// None may appear.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import { LAB_ORDERS } from "@/lib/demo/lab-orders";
import { runLab, type LabRun } from "@/lib/lab/run-lab";
import { startServer, type RunningServer } from "../support/server";
import { newTestDatabase, storedText } from "../support/test-database";

const LAB_SECRET = "lab_secret_leak_check_A1";
const LAB_SECRET_NEXT = "lab_secret_leak_check_B2";
const API_TOKEN = "api-token-leak-check-0123456789abcdef-C3";
const ATTACKER_KEY = "attacker_guessed_key_0000";
const folder = mkdtempSync(path.join(tmpdir(), "acredita-secrets-"));
const logFile = path.join(folder, "server.log");
const testDatabase = newTestDatabase("leak");
const databaseUrl = testDatabase.url;
/** The SQLite file (undefined on PostgreSQL). */
const dbFile = testDatabase.file;

let server: RunningServer;
let run: LabRun;
const labOutput: string[] = [];
/** Every signature header the lab sent, whole, as captured on the way out. */
const signatureHeaders: string[] = [];
const responses: string[] = [];

/** Records outgoing signature headers and every response body while the lab runs. */
function recordingFetch(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    const signature = headers.get("lab-signature");
    if (signature) signatureHeaders.push(signature);
    const response = await inner(input, init);
    responses.push(await response.clone().text());
    return response;
  };
}

before(async () => {
  server = await startServer({
    DATABASE_URL: databaseUrl,
    LAB_WEBHOOK_SECRET: `${LAB_SECRET},${LAB_SECRET_NEXT}`,
    API_TOKEN,
    LOG_FILE: logFile,
    LOG_LEVEL: "trace",
  });
  const realFetch = globalThis.fetch;
  globalThis.fetch = recordingFetch(realFetch);
  try {
    run = await runLab({ url: server.url, apiToken: API_TOKEN, secret: LAB_SECRET, msPerSimulatedMinute: 20, print: (line) => labOutput.push(line) });
  } finally {
    globalThis.fetch = realFetch;
  }
});
after(() => server?.stop());

/** The hex signatures inside the captured headers (`v1=<hex>`), in both cases. */
function signatures(): string[] {
  const found = signatureHeaders.flatMap((header) => [...header.matchAll(/v1=([0-9a-f]{64})/g)].map((match) => match[1]));
  return [...new Set(found)].flatMap((hex) => [hex, hex.toUpperCase()]);
}

/** Every row of every table as JSON (SQLite: sqlite_master's tables; PostgreSQL: the public schema's). */
async function dumpEveryRow(): Promise<string> {
  if (!dbFile) return storedText(testDatabase);
  const database = new Database(dbFile, { readonly: true });
  try {
    const tables = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    return tables.map(({ name }) => JSON.stringify(database.prepare(`SELECT * FROM "${name}"`).all(), (_, value) => (typeof value === "bigint" ? String(value) : value))).join("\n");
  } finally {
    database.close();
  }
}

function databaseBytes(file: string): string {
  return [file, `${file}-wal`].filter((name) => existsSync(name)).map((name) => readFileSync(name).toString("latin1")).join("\n");
}

function assertAbsent(haystack: string, where: string, needles: string[]): void {
  for (const needle of needles) assert.equal(haystack.includes(needle), false, `${where} contains ${needle.slice(0, 8)}… (${needle.length} chars)`);
}

test("the lab ran end to end: 0 mismatches, and every delivery it signed was captured", () => {
  assert.deepEqual([run.report.mismatches.length, run.report.rowCount, run.report.orderCount], [0, 5, 5]);
  // Ten deliveries (the provider's retry of evt_0005 included); the concurrent pair shares one signature.
  assert.equal(run.deliveries.length, 10);
  assert.equal(signatureHeaders.length, 10);
  assert.ok(signatureHeaders.every((header) => /^t=\d+,v1=[0-9a-f]{64}$/.test(header)));
  // Seven distinct (body, timestamp) pairs at least; a re-send within the same second repeats its signature.
  assert.ok(signatures().length >= 2 * 7, `${signatures().length / 2} distinct signatures`);
});

test("no secret, signature or signature header in any log line, nor in the server's or the lab's output", () => {
  const log = readFileSync(logFile, "utf8");
  const lines = log.split("\n").filter(Boolean);
  // The log is really there: one JSON line per decision at least.
  assert.ok(lines.filter((line) => line.includes('"msg":"decision"')).length >= 10, `${lines.length} log lines`);
  const needles = [LAB_SECRET, LAB_SECRET_NEXT, API_TOKEN, ATTACKER_KEY, ...signatures(), ...signatureHeaders];
  lines.forEach((line, index) => assertAbsent(line, `log line ${index + 1}`, needles));
  assertAbsent(server.output(), "server stdout/stderr", needles);
  assertAbsent(labOutput.join("\n"), "lab output", needles);
});

test("no secret or signature in the database file, its WAL, or any row, before and after a checkpoint", async () => {
  const needles = [LAB_SECRET, LAB_SECRET_NEXT, API_TOKEN, ATTACKER_KEY, ...signatures(), ...signatureHeaders];
  if (dbFile) {
    assertAbsent(databaseBytes(dbFile), "database file + WAL", needles);
    const writer = new Database(dbFile);
    const [checkpoint] = writer.pragma("wal_checkpoint(FULL)") as { busy: number }[];
    writer.close();
    assert.equal(checkpoint.busy, 0);
    assertAbsent(databaseBytes(dbFile), "database file + WAL after checkpoint", needles);
  }
  const rows = await dumpEveryRow();
  assert.match(rows, /evt_0005/);
  assertAbsent(rows, "table rows", needles);
});

test("no secret or signature in any response the lab received or any page and API answer", async () => {
  const auth = { authorization: `Bearer ${API_TOKEN}` };
  const paths = ["/", "/api/health", "/api/orders", "/api/orders?limit=500", "/api/metrics", ...LAB_ORDERS.map((order) => `/api/orders/${order.id}`)];
  const fetched: string[] = [];
  for (const url of paths) {
    for (const headers of [auth, {}]) {
      const response = await fetch(`${server.url}${url}`, { headers });
      fetched.push(`${response.status} ${[...response.headers].join(" ")} ${await response.text()}`);
    }
  }
  assert.match(fetched.join("\n"), /"credited":2500000/);
  const needles = [LAB_SECRET, LAB_SECRET_NEXT, API_TOKEN, ATTACKER_KEY, ...signatures(), ...signatureHeaders];
  assertAbsent(fetched.join("\n"), "pages and API answers", needles);
  assert.ok(responses.length >= 17, `${responses.length} responses captured`);
  assertAbsent(responses.join("\n"), "responses to the lab", needles);
  assertAbsent(JSON.stringify(run), "the lab's run report", needles);
});
