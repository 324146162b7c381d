// npm run reconcile -- <settlement.csv> [--json]: compare every order with the provider's settlement.
// Exit 0 when everything matches, 1 on mismatches, 2 on bad input (with the line number).
import { createReadStream, existsSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import { recordAudit } from "@/lib/audit/record-audit";
import { closeDb, db } from "@/lib/db/client";
import { formatReport, reconcile, reportJson } from "@/lib/reconciliation/reconcile";
import { readSettlementCsv, SettlementCsvError } from "@/lib/reconciliation/settlement-csv";
import { errorMessage } from "@/lib/log/error-message";

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const json = args.includes("--json");
  const file = args.find((arg) => !arg.startsWith("--"));
  if (!file) {
    console.error("usage: npm run reconcile -- <settlement.csv> [--json]");
    return 2;
  }
  if (!existsSync(file)) {
    console.error(`reconcile: ${file}: no such file`);
    return 2;
  }
  if (!statSync(file).isFile()) {
    console.error(`reconcile: ${file}: not a file`);
    return 2;
  }
  try {
    const client = await db();
    const report = await reconcile(client, readSettlementCsv(createReadStream(file)), file);
    // The audit actor of a command is the operating-system user who ran it.
    const operator = `cli:${process.env.USER ?? userInfo().username}`;
    await recordAudit(client, { id: operator, email: operator }, { action: "reconciliation.run", targetType: "reconciliation_run", targetId: report.runId, note: `${file}: ${report.mismatches.length} mismatches (npm run reconcile)` });
    console.log(json ? JSON.stringify(reportJson(report), null, 2) : formatReport(report));
    return report.mismatches.length === 0 ? 0 : 1;
  } catch (error) {
    if (error instanceof SettlementCsvError) {
      console.error(`reconcile: ${file}: ${error.message}`);
      return 2;
    }
    throw error;
  } finally {
    await closeDb();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`reconcile: ${errorMessage(error)}`);
    process.exit(2);
  },
);
