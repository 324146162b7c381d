import { TEST_DB } from "@/e2e/support/test-env";
// Each command of scripts/ run as npm runs it, once: the file runs its main when executed directly, with
// the process's arguments, environment and streams, and exits with its status. Everything else about a
// command is tested by calling its main in process (tests/integration/*-cli.test.ts, cli-schema,
// retention, outbox, tests/unit/start-refusals, e2e/http/lab-*); the processes that are a subject of
// their own (npm start, the worker, the receiver, the dead-letters command on a terminal, the README's
// `npm run lab`) are started by the other e2e/http tests. The commands run side by side.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { closeDb } from "@/lib/db/client";
import { spawnCommand } from "@/e2e/support/cli";
import type { CliEnv } from "@/lib/background/cli-io";

after(closeDb);

/** The environment of a command run by hand: only what it needs, the test database, logs silent. */
const env = (extra: Record<string, string> = {}): CliEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, LANG: "C", LOG_LEVEL: "silent", DATABASE_URL: TEST_DB.url, ...extra });

describe("each command runs its main when executed directly and exits with its status", { concurrency: true }, () => {
  test("npm run create-user: exit 0, the created line", async () => {
    const run = await spawnCommand("scripts/create-user.ts", ["--email", "smoke@shop.test", "--role", "admin"], env({ ACREDITA_NEW_PASSWORD: "saffron-glacier-tunnel-88" }));
    assert.deepEqual([run.code, run.stdout], [0, "created smoke@shop.test (admin)\n"], run.stderr);
  });

  test("npm run orgs -- list: exit 0, the default organization as a JSON line", async () => {
    const run = await spawnCommand("scripts/orgs.ts", ["list"], env());
    assert.deepEqual([run.code, run.stdout], [0, '{"id":"org_default","slug":"default","name":"Default organization"}\n'], run.stderr);
  });

  test("npm run endpoints -- create: exit 0, a lab endpoint with the secret Acredita made, as one JSON line", async () => {
    // A database of its own (the command migrates it): the secrets check beside it expects none stored.
    const database = `file:${path.join(mkdtempSync(path.join(tmpdir(), "acredita-smoke-endpoints-")), "endpoints.db")}`;
    const run = await spawnCommand("scripts/endpoints.ts", ["create", "--provider", "lab", "--account", "lab_smoke"], env({ DATABASE_URL: database, ACREDITA_SECRETS_KEY: Buffer.alloc(32, 7).toString("base64") }));
    assert.equal(run.code, 0, run.stderr);
    const made = JSON.parse(run.stdout) as { provider: string; account: string; secret: string };
    assert.deepEqual([made.provider, made.account, /^[0-9a-f]{64}$/.test(made.secret)], ["lab", "lab_smoke", true]);
  });

  test("npm run outbox: exit 0, the count line", async () => {
    const run = await spawnCommand("scripts/outbox.ts", ["list"], env());
    assert.deepEqual([run.code, run.stdout], [0, "0 outbox messages\n"], run.stderr);
  });

  test("npm run reconcile: exit 0 on the lab's report of no order, its summary line", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "acredita-smoke-")), "settlement.csv");
    writeFileSync(file, "order_id,provider_status,amount,currency\n");
    const run = await spawnCommand("scripts/reconcile.ts", [file], env());
    assert.deepEqual([run.code, run.stdout], [0, "0 mismatches in 0 settlement rows and 0 orders; over-credited: 0\n"], run.stderr);
  });

  test("npm run retention: a refused period exits 2 with its line", async () => {
    const run = await spawnCommand("scripts/retention.ts", ["--days", "0"], env());
    assert.deepEqual([run.code, run.stdout, run.stderr], [2, "", "retention: --days must be a whole number from 1 to 3650\n"]);
  });

  test("npm run db:resolve: no failed migration of that name exits 2 with its line", async () => {
    const run = await spawnCommand("scripts/resolve-migration.ts", ["--applied", "20990101000000_nothing"], env());
    assert.deepEqual([run.code, run.stdout, run.stderr], [2, "", "db:resolve: no failed migration named 20990101000000_nothing (failed migrations: none)\n"]);
  });

  test("npm run db:schema -- --check: exit 0, up to date", async () => {
    const run = await spawnCommand("scripts/generate-postgres-schema.ts", ["--check"], env());
    assert.deepEqual([run.code, run.stdout], [0, "prisma/postgresql/schema.prisma is up to date\n"], run.stderr);
  });

  test("npm run secrets -- check: exit 0 on a database without stored secrets, its JSON", async () => {
    const run = await spawnCommand("scripts/secrets.ts", ["check"], env());
    assert.deepEqual([run.code, JSON.parse(run.stdout)], [0, { ok: true, keys: [], issues: [] }], run.stderr);
  });

  test("npm run replay: a filter naming no event exits 1 with its line", async () => {
    const run = await spawnCommand("scripts/replay.ts", ["preview", "--order", "ord_smoke_none"], env());
    assert.deepEqual([run.code, run.stdout], [1, "the filter names no event that can be replayed\n"], run.stderr);
  });

  test("npm run backfill: no --since is the usage, exit 2", async () => {
    const run = await spawnCommand("scripts/backfill.ts", ["--endpoint", "stripe"], env());
    assert.deepEqual([run.code, run.stdout, run.stderr], [2, "", "usage: npm run backfill -- --endpoint <id or name> --since <72h | 30m | 2d | ISO time> [--dry-run]\n"]);
  });

  test("npm run settlement-pull: no --endpoint is the usage, exit 2", async () => {
    const run = await spawnCommand("scripts/settlement-pull.ts", ["--date", "2026-12-02"], env());
    assert.deepEqual([run.code, run.stdout, run.stderr], [2, "", "usage: npm run settlement-pull -- --endpoint <id or name> [--date YYYY-MM-DD (the pull's date: it reports the previous UTC day; default today)]\n"]);
  });

  test("npm run verify-books: exit 0 on a database of no order, its summary line", async () => {
    const run = await spawnCommand("scripts/verify-books.ts", [], env());
    assert.deepEqual([run.code, run.stdout], [0, "books agree for 0 of 0 orders\n"], run.stderr);
  });

  test("npm run db:migration without a topic: exit 2, the usage", async () => {
    const run = await spawnCommand("scripts/new-migration.ts", [], env());
    assert.deepEqual([run.code, run.stdout, run.stderr], [2, "", "usage: npm run db:migration -- <topic>   (lower-case letters, digits and _)\n"]);
  });
});
