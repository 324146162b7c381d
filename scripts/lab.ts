// npm run lab [-- --url http://127.0.0.1:3000] [--compare] [--json] [--locale en|es-AR] [--wait <seconds>] [--allow-production]:
// play the lab provider's five deliveries against a running Acredita (--url, else http://127.0.0.1:$PORT,
// else port 3000; .env files are read as npm start reads them), reconcile, print. A production target is
// refused without --allow-production. Exit 0 when 0 mismatches, 1 otherwise, 2 when it cannot run (no
// server answers, a bad --url or PORT, a production target, its events not applied within --wait).
// Log lines to stderr: this command's stdout is its output. First import, before anything loads the logger.
import "@/lib/log/cli-logs-to-stderr";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { loadEnvConfig } from "@next/env";
import { DEMO_SECRETS, readSettings } from "@/lib/config/settings";
import { runFlawedReceiver, type ComparisonRow } from "@/lib/lab/flawed-receivers";
import { labSettlementPath, labTarget, labWaitSeconds, probeServer, productionRefusal } from "@/lib/lab/lab-target";
import { formatDeliveryHeader, LabWaitTimeout, runLab, type LabRun } from "@/lib/lab/run-lab";
import { formatReport } from "@/lib/reconciliation/reconcile";
import { cliLocale, cliReasons, type CliReasons } from "@/lib/reasons/cli-reasons";
import { writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";
import { runCli } from "@/lib/background/run-cli";
import { terminalSafe } from "@/lib/format/terminal-safe";

// The same environment files `npm start` loads (.env, .env.production, ...), so PORT and the secrets match the server's.
loadEnvConfig(process.cwd(), false, { info: () => undefined, error: (...args: unknown[]) => console.error(...args) });

function formatTable(rows: ComparisonRow[], view: CliReasons): string {
  const word = (key: string) => view.t(`reasons.lab.compare.${key}`);
  const header = `${word("receiver").padEnd(20)} ${word("scenarios").padEnd(10)} ${word("mismatches").padEnd(12)} ${word("overcredited")}`;
  const lines = rows.map((row) => {
    const over = Object.entries(row.overcredited).map(([currency, amount]) => view.money(amount, currency)).join(", ");
    return `${row.receiver.padEnd(20)} ${row.scenarios.padEnd(10)} ${view.t("reasons.lab.compare.of", { n: view.count(row.mismatches), of: view.count(row.orders) }).padEnd(12)} ${over}`;
  });
  return [header, ...lines].join("\n");
}

/**
 * `npm run lab`: takes the arguments after the script, the environment (PORT, the lab secret and operator
 * token, DATABASE_URL for where the settlement goes, the locale's LANG) and the streams; resolves with the
 * exit status (0 no mismatch, 1 mismatches, 2 it cannot run).
 */
export async function main(argv: string[], env: CliEnv, io: CliIo): Promise<number> {
  /** Prints one line: ids and reasons came from providers' bodies, so nothing in them may drive the terminal. */
  const print = (line: string) => writeLine(io.stdout, terminalSafe(line));
  const refuse = (line: string) => writeLine(io.stderr, line);
  const target = labTarget(argv, env);
  if ("error" in target) {
    refuse(`lab: ${target.error}`);
    return 2;
  }
  const { url } = target;
  const locale = cliLocale(argv, env);
  if (typeof locale !== "string") {
    refuse(`lab: ${locale.error}`);
    return 2;
  }
  const view = cliReasons(locale);
  const waitSeconds = labWaitSeconds(argv);
  if (typeof waitSeconds !== "number") {
    refuse(`lab: ${waitSeconds.error}`);
    return 2;
  }
  const probe = await probeServer(url);
  if ("problem" in probe) {
    refuse(`lab: ${probe.problem}`);
    return 2;
  }
  const refusal = productionRefusal(probe.mode, url, argv, view);
  if (refusal) {
    refuse(`lab: ${refusal}`);
    return 2;
  }
  const config = readSettings(env);
  print(view.t("reasons.lab.target", { url: `${url}/api/webhooks/lab` }));
  print(formatDeliveryHeader(view));
  // The lab plays a provider and a store against a server: it signs with the lab secret and creates
  // orders with the operator token, both taken from the environment, else the public demo values
  // (which only a demo server accepts).
  let run: LabRun;
  try {
    run = await runLab({ url, apiToken: config.API_TOKEN ?? DEMO_SECRETS.API_TOKEN, secret: config.LAB_WEBHOOK_SECRET?.[0] ?? DEMO_SECRETS.LAB_WEBHOOK_SECRET, print, view, waitSeconds });
  } catch (error) {
    // Its own events not applied within --wait: named, and no reconciliation of a half-applied lab.
    if (!(error instanceof LabWaitTimeout)) throw error;
    refuse(`lab: ${error.message}`);
    return 2;
  }

  const csvPath = labSettlementPath(url, env);
  mkdirSync(path.dirname(csvPath), { recursive: true });
  writeFileSync(csvPath, run.settlementCsv);
  print(`\n${view.t("reasons.lab.settlementWritten", { path: csvPath, runId: run.report.runId })}`);
  print(formatReport({ ...run.report, source: csvPath }, view));

  if (argv.includes("--compare")) {
    const rows: ComparisonRow[] = [
      await runFlawedReceiver("naive", [1, 2, 3, 4, 5]),
      await runFlawedReceiver("look-up-then-mark", [1, 2]),
      { receiver: "hardened (Acredita)", scenarios: "1,2,3,4,5", mismatches: run.report.mismatches.length, orders: 5, overcredited: run.report.overcredited },
    ];
    print(`\n${view.t("reasons.lab.compareTitle")}`);
    print(formatTable(rows, view));
  }
  return run.report.mismatches.length === 0 ? 0 : 1;
}

if (require.main === module) runCli("lab", main, { errorCode: 2 });
