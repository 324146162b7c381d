// npm run lint:arch (scripts/lint-arch.ts, rules in .dependency-cruiser.cjs): every rule reports a
// violating import by its exact name (the layers, folder loops and money-path writers included), allowed
// imports pass. The real tree (no violation, and enough modules cruised to show the roots and the `@/`
// alias are read) is npm test's first stage, `npm run lint:arch`: cruising it here again cost seconds.
// The violations are written into a throwaway tree in the temporary folder (its own tsconfig.json with
// the `@/` alias, node_modules linked to the repository's), never into the repository.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { checkArchitecture, type ArchViolation } from "@/scripts/lint-arch";

const FIXTURE: Record<string, string> = {
  "tsconfig.json": JSON.stringify({ compilerOptions: { module: "esnext", moduleResolution: "bundler", jsx: "react-jsx", paths: { "@/*": ["./*"] } } }),
  // Allowed: app imports lib, scripts import lib, lib imports lib.
  "app/page.tsx": 'import { core } from "@/lib/core/apply";\nexport default function Page() { return core; }\n',
  "scripts/tool.ts": 'import { core } from "@/lib/core/apply";\nexport const tool = core;\n',
  "bench/run.ts": "export const bench = 1;\n",
  "e2e/support/server.ts": "export const server = 1;\n",
  "tests/support/helper.ts": "export const helper = 1;\n",
  "lib/db/client.ts": "export const db = 1;\n",
  "lib/generated/prisma/client.ts": "export const generated = 1;\n",
  "lib/money/minor-units.ts": "export const minor = 1;\n",
  // lib-not-to-app and lib-not-to-tooling.
  "lib/orders/uses-app.ts": 'import Page from "@/app/page";\nexport const page = Page;\n',
  "lib/orders/uses-tooling.ts": 'import { tool } from "@/scripts/tool";\nimport { bench } from "@/bench/run";\nimport { server } from "@/e2e/support/server";\nimport { helper } from "../../tests/support/helper";\nexport const all = [tool, bench, server, helper];\n',
  // providers-not-to-database, signatures included.
  "lib/providers/stripe.ts": 'import { db } from "@/lib/db/client";\nimport { generated } from "@/lib/generated/prisma/client";\nimport { Pool } from "pg";\nimport Database from "better-sqlite3";\nimport { minor } from "@/lib/money/minor-units";\nexport const all = [db, generated, Pool, Database, minor];\n',
  "lib/providers/yolfi.ts": 'import { PrismaClient } from "@prisma/client";\nexport const client = PrismaClient;\n',
  "lib/providers/signatures/hmac.ts": 'import type { db } from "@/lib/db/client";\nexport type Db = typeof db;\n',
  // core-not-to-providers (the core may import money).
  "lib/core/apply.ts": 'import { minor } from "@/lib/money/minor-units";\nexport const core = minor;\n',
  "lib/core/decide.ts": 'import { all } from "@/lib/providers/stripe";\nimport { client } from "@/lib/providers/yolfi";\nexport const decided = [all, client];\n',
  // no-flawed-receivers: the lab CLI and the lab's tests may import them; a page and another lab module may not.
  "lib/lab/flawed-receivers.ts": "export const flawed = 1;\n",
  "scripts/lab.ts": 'import { flawed } from "@/lib/lab/flawed-receivers";\nexport const lab = flawed;\n',
  "lib/lab/flawed-receivers.test.ts": 'import { flawed } from "./flawed-receivers";\nexport const tested = flawed;\n',
  "tests/integration/lab-cli.test.ts": 'import { flawed } from "@/lib/lab/flawed-receivers";\nexport const tested = flawed;\n',
  "app/lab/page.tsx": 'import { flawed } from "@/lib/lab/flawed-receivers";\nexport default function Lab() { return flawed; }\n',
  "lib/lab/run-lab.ts": 'import { flawed } from "./flawed-receivers";\nexport const run = flawed;\n',
  // no-circular-in-lib: a value cycle and a type-only one, each reported once (at one of its imports).
  "lib/inbox/claim.ts": 'import { dead } from "@/lib/dead-letters/record";\nexport const claim = () => dead;\n',
  "lib/dead-letters/record.ts": 'import { claim } from "@/lib/inbox/claim";\nexport const dead = () => claim;\n',
  "lib/events/kinds.ts": 'import type { Worker } from "./worker";\nexport type Kind = Worker | "kind";\n',
  "lib/events/worker.ts": 'import type { Kind } from "./kinds";\nexport type Worker = { kind: Kind };\n',
  // Layers: persistence (ledger) importing a pipeline (ingest), config importing the database, the core
  // importing the database; a test beside the code may import from above.
  "lib/ledger/up.ts": 'import { store } from "@/lib/ingest/store";\nexport const up = store;\n',
  "lib/ledger/up.test.ts": 'import { store } from "@/lib/ingest/store";\nexport const tested = store;\n',
  "lib/config/uses-db.ts": 'import { db } from "@/lib/db/client";\nexport const config = db;\n',
  "lib/core/store.ts": 'import { db } from "@/lib/db/client";\nexport const stored = db;\n',
  // Folder loops without a module cycle: two folders importing each other, and three round a loop.
  "lib/ingest/store.ts": 'import { run } from "@/lib/apply/run";\nexport const store = run;\n',
  "lib/ingest/types.ts": "export const types = 1;\n",
  "lib/apply/run.ts": 'import { types } from "@/lib/ingest/types";\nexport const run = types;\n',
  "lib/reconciliation/a.ts": 'import { b } from "@/lib/retention/b";\nexport const a = b;\n',
  "lib/retention/b.ts": 'import { c } from "@/lib/review/c";\nexport const b = c;\n',
  "lib/review/c.ts": 'import { d } from "@/lib/reconciliation/d";\nexport const c = d;\n',
  "lib/reconciliation/d.ts": "export const d = 1;\n",
  // money-path-writers: the owner writes its table; another module of lib/ or app/ may not (SQL or the
  // model API); tests and their seeds may.
  "lib/events/webhook-events.ts": 'export const insert = `INSERT INTO "WebhookEvent" ("id") VALUES (?)`;\n',
  "lib/orders/writes-events.ts": "export const touch = (db: any) => db.webhookEvent.updateMany({ where: {}, data: {} });\n",
  "app/actions.ts": 'export const resolve = `UPDATE "DeadLetter" SET "status" = \'resolved\'`;\n',
  "lib/ledger/bookings.test.ts": 'export const seed = `INSERT INTO "Decision" ("id") VALUES (?)`;\n',
  "tests/support/seed.ts": 'export const seed = `DELETE FROM "LedgerEntry"`;\n',
};

const v = (rule: string, from: string, to: string): ArchViolation => ({ rule, from, to });
const key = (violation: ArchViolation) => `${violation.rule} ${violation.from} -> ${violation.to}`;

describe("lint:arch rules", () => {
  let root: string;

  before(() => {
    root = mkdtempSync(path.join(tmpdir(), "lint-arch-"));
    for (const [file, text] of Object.entries(FIXTURE)) {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    }
    symlinkSync(path.resolve("node_modules"), path.join(root, "node_modules"), "dir");
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test("each violating import is reported under its rule's exact name, and nothing else is", async () => {
    const { violations } = await checkArchitecture({ baseDir: root });
    const reported = violations.map((violation) => ({ ...violation, to: violation.to.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+)\/.*$/, "node_modules/$1") }));
    const expected = [
      v("lib-not-to-app", "lib/orders/uses-app.ts", "app/page.tsx"),
      v("lib-not-to-tooling", "lib/orders/uses-tooling.ts", "bench/run.ts"),
      v("lib-not-to-tooling", "lib/orders/uses-tooling.ts", "e2e/support/server.ts"),
      v("lib-not-to-tooling", "lib/orders/uses-tooling.ts", "scripts/tool.ts"),
      v("lib-not-to-tooling", "lib/orders/uses-tooling.ts", "tests/support/helper.ts"),
      v("providers-not-to-database", "lib/providers/stripe.ts", "lib/db/client.ts"),
      v("providers-not-to-database", "lib/providers/stripe.ts", "lib/generated/prisma/client.ts"),
      v("providers-not-to-database", "lib/providers/stripe.ts", "node_modules/better-sqlite3"),
      v("providers-not-to-database", "lib/providers/stripe.ts", "node_modules/pg"),
      v("providers-not-to-database", "lib/providers/yolfi.ts", "node_modules/@prisma/client"),
      v("providers-not-to-database", "lib/providers/signatures/hmac.ts", "lib/db/client.ts"),
      v("core-not-to-providers", "lib/core/decide.ts", "lib/providers/stripe.ts"),
      v("core-not-to-providers", "lib/core/decide.ts", "lib/providers/yolfi.ts"),
      v("no-flawed-receivers", "app/lab/page.tsx", "lib/lab/flawed-receivers.ts"),
      v("no-flawed-receivers", "lib/lab/run-lab.ts", "lib/lab/flawed-receivers.ts"),
      v("no-circular-in-lib", "lib/dead-letters/record.ts", "lib/inbox/claim.ts"),
      v("no-circular-in-lib", "lib/events/kinds.ts", "lib/events/worker.ts"),
      v("layer-persistence", "lib/dead-letters/record.ts", "lib/inbox/claim.ts"),
      v("layer-persistence", "lib/ledger/up.ts", "lib/ingest/store.ts"),
      v("layer-config", "lib/config/uses-db.ts", "lib/db/client.ts"),
      v("core-not-to-database", "lib/core/store.ts", "lib/db/client.ts"),
      v("no-folder-loop", "lib/dead-letters", "lib/inbox"),
      v("no-folder-loop", "lib/apply", "lib/ingest"),
      v("no-folder-loop", "lib/reconciliation", "lib/retention"),
      v("money-path-writers", "lib/orders/writes-events.ts", "lib/events/webhook-events.ts (WebhookEvent)"),
      v("money-path-writers", "app/actions.ts", "lib/dead-letters/dead-letters.ts (DeadLetter)"),
    ];
    assert.deepEqual(reported.map(key).sort(), expected.map(key).sort());
    const cycle = violations.find((violation) => violation.rule === "no-circular-in-lib" && violation.from === "lib/dead-letters/record.ts");
    assert.deepEqual(cycle?.cycle, ["lib/inbox/claim.ts", "lib/dead-letters/record.ts"]);
    const loop = violations.find((violation) => violation.rule === "no-folder-loop" && violation.from === "lib/reconciliation");
    assert.deepEqual(loop?.cycle, ["lib/reconciliation", "lib/retention", "lib/review", "lib/reconciliation"]);
  });
});
