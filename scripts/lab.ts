// npm run lab [-- --url http://127.0.0.1:3000] [--compare] [--json]: play the lab provider's five
// deliveries against a running Acredita, reconcile, print. Exit 0 when 0 mismatches, 1 otherwise.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DEMO_SECRETS, settings } from "@/lib/config/settings";
import { runFlawedReceiver, type ComparisonRow } from "@/lib/lab/flawed-receivers";
import { runLab } from "@/lib/lab/run-lab";
import { formatReport } from "@/lib/reconciliation/reconcile";
import { errorMessage } from "@/lib/log/error-message";

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

function formatTable(rows: ComparisonRow[]): string {
  const header = `${"receiver".padEnd(20)} ${"scenarios".padEnd(10)} ${"mismatches".padEnd(12)} over-credited`;
  const lines = rows.map((row) => {
    const over = Object.entries(row.overcredited).map(([currency, amount]) => `${amount} ${currency}`).join(", ");
    return `${row.receiver.padEnd(20)} ${row.scenarios.padEnd(10)} ${`${row.mismatches} of ${row.orders}`.padEnd(12)} ${over}`;
  });
  return [header, ...lines].join("\n");
}

async function main(): Promise<number> {
  const config = settings();
  const url = (option("--url") ?? `http://127.0.0.1:${config.PORT}`).replace(/\/$/, "");
  console.log(`Lab provider -> ${url}/api/webhooks/lab`);
  console.log(`${"time".padEnd(7)} ${"event".padEnd(9)} ${"what".padEnd(52)} ${"HTTP".padEnd(4)} ${"outcome".padEnd(13)} reason`);
  // The lab plays a provider and a store against a server: it signs with the lab secret and creates
  // orders with the operator token, both taken from the environment, else the public demo values
  // (which only a demo server accepts).
  const run = await runLab({ url, apiToken: config.API_TOKEN ?? DEMO_SECRETS.API_TOKEN, secret: config.LAB_WEBHOOK_SECRET?.[0] ?? DEMO_SECRETS.LAB_WEBHOOK_SECRET, print: (line) => console.log(line) });

  const folder = path.join("data", "lab");
  mkdirSync(folder, { recursive: true });
  const csvPath = path.join(folder, "settlement.csv");
  writeFileSync(csvPath, run.settlementCsv);
  console.log(`\nSettlement written to ${csvPath}. Reconciliation (run ${run.report.runId}):`);
  console.log(formatReport({ ...run.report, source: csvPath }));

  if (process.argv.includes("--compare")) {
    const rows: ComparisonRow[] = [
      await runFlawedReceiver("naive", [1, 2, 3, 4, 5]),
      await runFlawedReceiver("look-up-then-mark", [1, 2]),
      { receiver: "hardened (Acredita)", scenarios: "1,2,3,4,5", mismatches: run.report.mismatches.length, orders: 5, overcredited: run.report.overcredited },
    ];
    console.log("\nThe same deliveries against the seed article's flawed receivers (throwaway database):");
    console.log(formatTable(rows));
  }
  return run.report.mismatches.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`lab: ${errorMessage(error)}`);
    process.exit(2);
  },
);
