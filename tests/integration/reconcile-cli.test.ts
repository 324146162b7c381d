import { TEST_DB } from "@/e2e/support/test-env";
// `npm run reconcile` on the lab's order-level report: its exit codes, lines and --json, the run it stores.
// The command's main runs in this process (e2e/http/cli-smoke.test.ts runs the script once).
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { createOrder, deliverLab, labEvent } from "@/e2e/support/http";
import { runMain } from "@/e2e/support/cli";
import { main as reconcile } from "@/scripts/reconcile";

const folder = mkdtempSync(path.join(tmpdir(), "acredita-reconcile-"));

async function reconcileCli(csv: string, ...flags: string[]) {
  const file = path.join(folder, `settlement-${Math.random().toString(36).slice(2)}.csv`);
  writeFileSync(file, csv);
  const result = await runMain(reconcile, [file, ...flags], { ...process.env, DATABASE_URL: TEST_DB.url });
  return { code: result.code, stdout: result.stdout.trim(), stderr: result.stderr.trim(), file };
}

const HEADER = "order_id,provider_status,amount,currency";

before(async () => {
  await createOrder("ord_r1", 2500000, "ARS");
  await createOrder("ord_r2", 1850000, "ARS");
  await deliverLab(labEvent("evt_r1", "payment.approved", "ord_r1", "pay_r1", 2500000));
  await deliverLab(labEvent("evt_r2", "payment.approved", "ord_r2", "pay_r2", 1850000));
  await closeDb();
});
after(closeDb);

describe("npm run reconcile", () => {
  test("exit 0 and a clean summary when the books match the settlement", async () => {
    const result = await reconcileCli(`${HEADER}\nord_r1,approved,2500000,ARS\nord_r2,approved,1850000,ARS\n`);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "0 mismatches in 2 settlement rows and 2 orders; over-credited: ARS 0.00");
  });

  test("exit 1 with one line per mismatch and the over-credited total; --json gives the documented shape; the run is stored", async () => {
    const csv = `${HEADER}\nord_r1,approved,2500000,ARS\nord_r2,none,0,ARS\n`;
    const text = await reconcileCli(csv);
    assert.equal(text.code, 1);
    assert.equal(
      text.stdout,
      [
        "MISMATCH ord_r2: provider none; expected created credited ARS 0.00; found paid credited ARS 18,500.00; over-credited ARS 18,500.00 (status paid, expected created; credited ARS 18,500.00, expected ARS 0.00)",
        "1 mismatch in 2 settlement rows and 2 orders; over-credited: ARS 18,500.00",
      ].join("\n"),
    );
    // In Spanish (--locale, or LANG=es_AR.UTF-8) the same report reads in es-AR, money as Argentines write it.
    const spanish = await reconcileCli(csv, "--locale", "es-AR");
    assert.equal(spanish.code, 1);
    assert.equal(
      spanish.stdout,
      [
        "DIFERENCIA ord_r2: proveedor ninguno; se esperaba creada con $ 0,00 acreditado; hay pagada con $ 18.500,00 acreditado; acreditado de más $ 18.500,00 (estado pagada, se esperaba creada; acreditado $ 18.500,00, se esperaba $ 0,00)",
        "1 diferencia en 2 filas de liquidación y 2 órdenes; acreditado de más: $ 18.500,00",
      ].join("\n"),
    );
    const json = await reconcileCli(csv, "--json");
    assert.equal(json.code, 1);
    // The run's source is the file's base name, never the server path every role sees in the list.
    const stored = await (await db()).reconciliationRun.findFirst({ orderBy: { startedAt: "desc" }, select: { source: true } });
    assert.equal(stored?.source, path.basename(json.file));
    assert.match(stored!.source, /^settlement-[a-z0-9]+\.csv$/);
    const report = JSON.parse(json.stdout) as { mismatches: { orderId: string; overcredited: number }[]; overcredited: Record<string, number> };
    assert.deepEqual(report.overcredited, { ARS: 1850000 });
    assert.deepEqual(report.mismatches.map((m) => [m.orderId, m.overcredited]), [["ord_r2", 1850000]]);
    const runs = await (await db()).reconciliationRun.findMany({ include: { mismatches: true }, orderBy: { startedAt: "asc" } });
    assert.deepEqual(runs.map((run) => [run.rowCount, run.mismatchCount, run.mismatches.length]), [[2, 0, 0], [2, 1, 1], [2, 1, 1], [2, 1, 1]]);
  });

  test("exit 2 with the line number on bad input: a bad line fails its run (kept, with the error, no mismatch); a bad file is refused before any run", async () => {
    const before = await (await db()).reconciliationRun.count();
    const bad = await reconcileCli(`${HEADER}\nord_r1,approved,2500000,ARS\nord_r2,approved,lots,ARS\n`);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, `reconcile: ${bad.file}: line 3: amount: "lots" must be a whole number of minor units`);
    const missing = await runMain(reconcile, ["/nonexistent.csv"], {});
    assert.equal(missing.code, 2);
    const folder = await runMain(reconcile, [tmpdir()], {});
    assert.deepEqual([folder.code, folder.stderr.trim()], [2, `reconcile: ${tmpdir()}: not a file`]);
    const empty = await reconcileCli("");
    assert.deepEqual([empty.code, empty.stderr], [2, `reconcile: ${empty.file}: line 1: empty file: expected a header row`]);
    const runs = await (await db()).reconciliationRun.findMany({ where: { startedAt: { gte: new Date(Date.now() - 60_000) } }, orderBy: { startedAt: "asc" }, include: { mismatches: true } });
    assert.equal(await (await db()).reconciliationRun.count(), before + 1);
    const failed = runs[runs.length - 1];
    assert.deepEqual([failed.status, failed.error, failed.errorCode, failed.mismatches.length, failed.activeScope], ["failed", 'line 3: amount: "lots" must be a whole number of minor units', "report_line", 0, null]);
  });
});
