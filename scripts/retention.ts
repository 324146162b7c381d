// npm run retention [-- --days N] [--decision-days N] [--rejection-count-days N] [--dry-run] [--json]:
// empty stored payloads older than the payload period (PAYLOAD_RETENTION_DAYS), delete decision rows
// older than DECISION_RETENTION_DAYS and per-minute refusal counts older than
// REJECTION_COUNT_RETENTION_DAYS, and sign-in rate-limit rows whose window is over; prints the periods in use and their defaults first. Exit 0 when done,
// 2 on a bad argument or setting, 1 on a database failure.
import "@/lib/config/env-files";
import { z } from "zod";
import { readSettings, settingDefault, SettingsError, type Settings } from "@/lib/config/settings";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";
import { withOwnDb } from "@/lib/db/client";
import { formatDecisionRetentionReport, purgeExpiredDecisions } from "@/lib/retention/purge-decisions";
import { formatRetentionReport, purgeExpiredPayloads } from "@/lib/retention/purge-payloads";
import { formatRateLimitRetentionReport, purgeExpiredRateLimits } from "@/lib/retention/purge-rate-limits";
import { writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";
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

/**
 * `npm run retention`: takes the arguments after the script, the environment (DATABASE_URL and the
 * retention settings the flags override) and the streams; resolves with the exit status (0 done, 2 a bad
 * argument or setting, or the schema step's status). Throws on a database failure (runCli: exit 1).
 */
export async function main(args: string[], env: CliEnv, io: CliIo): Promise<number> {
  const valued: string[] = PERIODS.map(([flag]) => flag);
  const unknown = args.filter((arg, index) => ![...valued, "--dry-run", "--json"].includes(arg) && !valued.includes(args[index - 1]));
  if (unknown.length > 0) {
    writeLine(io.stderr, `retention: unknown argument ${unknown[0]}\n${USAGE}`);
    return 2;
  }
  const days = {} as Record<PeriodSetting, number>;
  let config: Settings;
  try {
    config = readSettings(env);
    for (const [flag, setting] of PERIODS) {
      const given = args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined;
      if (given === undefined) {
        days[setting] = config[setting];
        continue;
      }
      const parsed = daysSchema.safeParse(given);
      if (!parsed.success) {
        writeLine(io.stderr, `retention: ${flag} must be a whole number from 1 to 3650`);
        return 2;
      }
      days[setting] = parsed.data;
    }
  } catch (error) {
    if (error instanceof SettingsError) {
      writeLine(io.stderr, `retention: ${error.message}`);
      return 2;
    }
    throw error;
  }
  const dryRun = args.includes("--dry-run");
  const schemaExit = await cliSchemaExitCode("retention", config.DATABASE_URL, { apply: true, stderr: io.stderr });
  if (schemaExit !== undefined) return schemaExit;
  const { payloads, decisions, rateLimits } = await withOwnDb(config, async (database) => ({
    payloads: await purgeExpiredPayloads(database, { retentionDays: days.PAYLOAD_RETENTION_DAYS, dryRun }),
    decisions: await purgeExpiredDecisions(database, { decisionRetentionDays: days.DECISION_RETENTION_DAYS, rejectionCountRetentionDays: days.REJECTION_COUNT_RETENTION_DAYS, dryRun }),
    rateLimits: await purgeExpiredRateLimits(database, config, { dryRun }),
  }));
  if (args.includes("--json")) {
    writeLine(io.stdout, JSON.stringify({ ...payloads, decisions, rateLimits }));
  } else {
    writeLine(io.stdout, `Retention periods (days): ${PERIODS.map(([, setting]) => `${setting}=${days[setting]} (default ${settingDefault(setting)})`).join(", ")}`);
    writeLine(io.stdout, formatRetentionReport(payloads));
    writeLine(io.stdout, formatDecisionRetentionReport(decisions));
    writeLine(io.stdout, formatRateLimitRetentionReport(rateLimits));
  }
  return 0;
}

if (require.main === module) runCli("retention", main);
