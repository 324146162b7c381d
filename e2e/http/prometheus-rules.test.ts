// The Prometheus alerting rules shipped in deploy/prometheus/ (docs/operations.md, "Prometheus alerting
// rules"): promtool accepts them and their unit tests pass, every alert has a case where it fires and
// one where it does not, every metric they name is one Acredita exports, and every alert carries its
// severity, summary, description and a runbook link to a heading that exists. In the process tier
// because it runs promtool (Debian's `prometheus` package; .ci/run installs it). Without promtool the
// test fails, saying so: a rules file that is never checked is a rules file that silently breaks.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { OperationalMetrics } from "@/lib/monitoring/operational-metrics";
import { renderPrometheus } from "@/lib/monitoring/prometheus";
import { anchorsOf } from "@/scripts/check-doc-links";

const REPO = path.resolve(__dirname, "../..");
const RULES = "deploy/prometheus/acredita-rules.yml";
const RULE_TESTS = "deploy/prometheus/acredita-rules.test.yml";
const read = (file: string) => readFileSync(path.join(REPO, file), "utf8");

/** promtool on PATH, else Debian's /usr/bin/promtool; undefined when neither runs. */
function findPromtool(): string | undefined {
  for (const candidate of ["promtool", "/usr/bin/promtool"]) {
    if (spawnSync(candidate, ["--version"], { stdio: "ignore" }).status === 0) return candidate;
  }
  return undefined;
}

function promtool(args: string[]): { code: number | null; output: string } {
  const binary = findPromtool();
  assert.ok(binary, "promtool is not installed: install Debian's `prometheus` package (apt-get install prometheus; .ci/run installs it in CI) to check deploy/prometheus/acredita-rules.yml");
  const run = spawnSync(binary, args, { cwd: REPO, encoding: "utf8", timeout: 30_000 });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

/** The alerting rules of the rules file, each as its own block of lines (from `- alert:` to the next rule, group or the end). */
function alertBlocks(yaml: string): { alert: string; group: string; block: string }[] {
  const blocks: { alert: string; group: string; block: string }[] = [];
  let group = "";
  for (const line of yaml.split("\n")) {
    const groupName = /^ {2}- name: (\S+)/.exec(line);
    const alertName = /^ {6}- alert: (\S+)/.exec(line);
    if (groupName) group = groupName[1];
    if (alertName) blocks.push({ alert: alertName[1], group, block: "" });
    else if (groupName) continue;
    else if (blocks.length > 0 && !/^ {0,4}\S/.test(line)) blocks[blocks.length - 1].block += `${line}\n`;
  }
  return blocks;
}

/** Operational metrics with every optional part present (the books checked, a gap check), so every metric is rendered. */
const SAMPLE: OperationalMetrics = {
  generatedAt: "2026-12-01T12:00:00.000Z",
  inbox: { pending: 3, received: 1, processing: 1, parked: 1, oldestPendingAgeSeconds: 42 },
  failedAttemptsLastHour: 1,
  unavailableAnswersLastHour: 0,
  unboundAccountEventsLastHour: 0,
  deadLetters: { open: 0 },
  outbox: { pending: 0, sending: 0, uncertain: 0, failed: 0, sent: 5 },
  rejectionsLastHour: { total: 2, byReason: { signature_mismatch: 2 } },
  rejectionTotals: [{ endpoint: "stripe", reason: "signature_mismatch", count: 2 }],
  confirmedPaymentsWithoutDeliveryResult: 0,
  books: { checkedAt: "2026-12-01T06:00:00.000Z", orders: 5, agreeing: 5, differing: 0, unverifiable: 0, waiting: 0 },
  gapChecks: [{ endpoint: "stripe", checkedAt: "2026-12-01T11:00:00.000Z", status: "done", listed: 10, missing: 0, error: null }],
};

test("promtool check rules accepts the rules file, every rule counted", () => {
  const alerts = alertBlocks(read(RULES));
  const run = promtool(["check", "rules", RULES]);
  assert.equal(run.code, 0, run.output);
  assert.match(run.output, new RegExp(`SUCCESS: ${alerts.length} rules found`), run.output);
});

test("promtool test rules passes, with a firing and a quiet case for every alert of every group", () => {
  const run = promtool(["test", "rules", RULE_TESTS]);
  assert.equal(run.code, 0, run.output);
  assert.match(run.output, /SUCCESS/, run.output);
  // promtool names no group on success: the test file must name each alert in a case where it fires
  // (exp_alerts with entries) and one where it does not (exp_alerts: []).
  const cases = [...read(RULE_TESTS).matchAll(/alertname: (\S+)\n\s+exp_alerts:( \[\])?/g)].map((match) => ({ alert: match[1], fires: match[2] === undefined }));
  const groups = new Set<string>();
  for (const { alert, group } of alertBlocks(read(RULES))) {
    groups.add(group);
    assert.ok(cases.some((c) => c.alert === alert && c.fires), `${alert} (group ${group}) has no test case where it fires`);
    assert.ok(cases.some((c) => c.alert === alert && !c.fires), `${alert} (group ${group}) has no test case where it does not fire`);
  }
  assert.deepEqual([...groups].sort(), ["acredita-inbox", "acredita-payments", "acredita-server", "acredita-webhooks"]);
  const tested = new Set(cases.map((c) => c.alert));
  const defined = new Set(alertBlocks(read(RULES)).map((block) => block.alert));
  assert.deepEqual([...tested].filter((alert) => !defined.has(alert)), [], "the tests name alerts the rules file does not define");
});

test("every metric the rules name is one /api/metrics/prometheus exports", async () => {
  const exposition = await renderPrometheus(SAMPLE, 0);
  const exported = new Set([...exposition.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]));
  assert.ok(exported.has("acredita_dead_letters_open") && exported.has("acredita_server_restarts_total"), exposition);
  for (const file of [RULES, RULE_TESTS]) {
    const named = new Set([...read(file).matchAll(/\bacredita_[a-z_]+/g)].map((match) => match[0]));
    assert.ok(named.size > 0, file);
    const unknown = [...named].filter((name) => !exported.has(name));
    assert.deepEqual(unknown, [], `${file} names metrics lib/monitoring/prometheus.ts does not export (exported: ${[...exported].sort().join(", ")})`);
  }
});

test("every alert has a for, a severity, a summary, a description and a runbook link to a heading of docs/operations.md", () => {
  const anchors = anchorsOf(read("docs/operations.md"));
  const alerts = alertBlocks(read(RULES));
  assert.ok(alerts.length >= 10, `${alerts.length} alerts`);
  for (const { alert, block } of alerts) {
    assert.match(block, /^ {8}for: \d+[smhd]$/m, `${alert}: no for`);
    assert.match(block, /^ {10}severity: (page|ticket)$/m, `${alert}: severity is not page or ticket`);
    assert.match(block, /^ {10}summary: "[^"]+"$/m, `${alert}: no summary`);
    assert.match(block, /^ {10}description: "[^"]+"$/m, `${alert}: no description`);
    const runbook = /^ {10}runbook_url: docs\/operations\.md#(\S+)$/m.exec(block);
    assert.ok(runbook, `${alert}: no runbook_url to docs/operations.md`);
    assert.ok(anchors.has(runbook[1]), `${alert}: docs/operations.md has no heading #${runbook[1]}`);
  }
});
