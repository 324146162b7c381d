// npm run retention [-- --days N] [--decision-days N] [--rejection-count-days N] [--dry-run] [--json]:
// empty stored payloads older than the payload period (PAYLOAD_RETENTION_DAYS), delete decision rows
// older than DECISION_RETENTION_DAYS and per-minute refusal counts older than
// REJECTION_COUNT_RETENTION_DAYS, and sign-in rate-limit rows whose window is over; prints the periods in use and their defaults first. Exit 0 when done,
// 2 on a bad argument or setting, 1 on a database failure.
import "@/lib/config/env-files";
import { z } from "zod";
import { settingDefault, settings, SettingsError } from "@/lib/config/settings";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";
import { db } from "@/lib/db/client";
import { formatDecisionRetentionReport, purgeExpiredDecisions } from "@/lib/retention/purge-decisions";
import { formatRetentionReport, purgeExpiredPayloads } from "@/lib/retention/purge-payloads";
import { formatRateLimitRetentionReport, purgeExpiredRateLimits } from "@/lib/retention/purge-rate-limits";
import { runCli } from "@/lib/background/run-cli";

const daysSchema = z.coerce.number().int().min(1).max(3_650);
const USAGE = "usage: npm run retention -- [--days N] [--decision-days N] [--rejection-count-days N] [--dry-run] [--json]";
/** Each period's flag and the setting it overrides. */
const PERIODS = [
  ["--days", "PAYLOAD_RETENTION_DAYS"],
  ["--decision-days", "DECISION_RETENTION_DAYS"],
  ["--rejection-count-days", "REJECTION_COUNT_RETENTION_DAYS"],
] as const;
type PeriodSetting = (typeof PERIODS)[number][1];

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const valued: string[] = PERIODS.map(([flag]) => flag);
  const unknown = args.filter((arg, index) => ![...valued, "--dry-run", "--json"].includes(arg) && !valued.includes(args[index - 1]));
  if (unknown.length > 0) {
    console.error(`retention: unknown argument ${unknown[0]}\n${USAGE}`);
    return 2;
  }
  const days = {} as Record<PeriodSetting, number>;
  try {
    const config = settings();
    for (const [flag, setting] of PERIODS) {
      const given = args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined;
      if (given === undefined) {
        days[setting] = config[setting];
        continue;
      }
      const parsed = daysSchema.safeParse(given);
      if (!parsed.success) {
        console.error(`retention: ${flag} must be a whole number from 1 to 3650`);
        return 2;
      }
      days[setting] = parsed.data;
    }
  } catch (error) {
    if (error instanceof SettingsError) {
      console.error(`retention: ${error.message}`);
      return 2;
    }
    throw error;
  }
  const dryRun = args.includes("--dry-run");
  const schemaExit = await cliSchemaExitCode("retention", { apply: true });
  if (schemaExit !== undefined) return schemaExit;
  // runCli closes the database once this returns or throws.
  const database = await db();
  const payloads = await purgeExpiredPayloads(database, { retentionDays: days.PAYLOAD_RETENTION_DAYS, dryRun });
  const decisions = await purgeExpiredDecisions(database, { decisionRetentionDays: days.DECISION_RETENTION_DAYS, rejectionCountRetentionDays: days.REJECTION_COUNT_RETENTION_DAYS, dryRun });
  const rateLimits = await purgeExpiredRateLimits(database, settings(), { dryRun });
  if (args.includes("--json")) {
    console.log(JSON.stringify({ ...payloads, decisions, rateLimits }));
  } else {
    console.log(`Retention periods (days): ${PERIODS.map(([, setting]) => `${setting}=${days[setting]} (default ${settingDefault(setting)})`).join(", ")}`);
    console.log(formatRetentionReport(payloads));
    console.log(formatDecisionRetentionReport(decisions));
    console.log(formatRateLimitRetentionReport(rateLimits));
  }
  return 0;
}

runCli("retention", () => main());
