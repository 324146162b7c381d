import assert from "node:assert/strict";
import { test } from "node:test";
import { formatProgress } from "@/lib/reconciliation/progress-line";
import { cliReasons } from "@/lib/reasons/cli-reasons";

test("a terminal gets a bar with rows, rows/s and the ETA from the bytes read; other outputs a plain line", () => {
  const progress = { phase: "reading" as const, rows: 120_000, bytes: 5_000_000, bytesTotal: 10_000_000, mismatches: 3 };
  assert.equal(formatProgress(progress, 3_000, true, 10), "[#####.....]  50%  120000 rows  40000 rows/s  ETA 0:03");
  assert.equal(formatProgress(progress, 3_000, false), "reconcile: 120000 rows, 50%, 40000 rows/s, ETA 0:03");
  assert.equal(formatProgress({ ...progress, phase: "matching", bytes: 10_000_000 }, 4_000, false), "reconcile: 120000 rows, 100%, 30000 rows/s matching with the ledger");
  assert.equal(formatProgress({ ...progress, bytesTotal: 0 }, 2_000, true, 4), "[....]   ?%  120000 rows  60000 rows/s");
});

test("in es-AR the words are Spanish and the numbers grouped", () => {
  const progress = { phase: "reading" as const, rows: 120_000, bytes: 5_000_000, bytesTotal: 10_000_000, mismatches: 3 };
  const es = cliReasons("es-AR");
  assert.equal(formatProgress(progress, 3_000, false, 30, es), "reconcile: 120.000 filas, 50%, 40.000 filas/s, quedan 0:03");
  assert.equal(formatProgress(progress, 3_000, true, 10, es), "[#####.....]  50%  120.000 filas  40.000 filas/s  quedan 0:03");
  assert.equal(formatProgress({ ...progress, phase: "matching", bytes: 10_000_000 }, 4_000, false, 30, es), "reconcile: 120.000 filas, 100%, 30.000 filas/s, comparando con el libro");
  assert.equal(formatProgress(progress, 3_000, false, 30, cliReasons("en")), "reconcile: 120000 rows, 50%, 40000 rows/s, ETA 0:03");
});
