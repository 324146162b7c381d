// npm run retention [-- --days N] [--dry-run] [--json]: empty stored payloads older than the retention
// period (PAYLOAD_RETENTION_DAYS by default). Exit 0 when done, 2 on a bad argument or setting, 1 on a
// database failure.
import { z } from "zod";
import { settings, SettingsError } from "@/lib/config/settings";
import { closeDb, db } from "@/lib/db/client";
import { formatRetentionReport, purgeExpiredPayloads } from "@/lib/retention/purge-payloads";

const daysSchema = z.coerce.number().int().min(1).max(3_650);

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const unknown = args.filter((arg, index) => !["--days", "--dry-run", "--json"].includes(arg) && args[index - 1] !== "--days");
  if (unknown.length > 0) {
    console.error(`retention: unknown argument ${unknown[0]}\nusage: npm run retention -- [--days N] [--dry-run] [--json]`);
    return 2;
  }
  let retentionDays: number;
  try {
    const given = args.includes("--days") ? args[args.indexOf("--days") + 1] : undefined;
    if (given === undefined) retentionDays = settings().PAYLOAD_RETENTION_DAYS;
    else {
      const parsed = daysSchema.safeParse(given);
      if (!parsed.success) {
        console.error("retention: --days must be a whole number from 1 to 3650");
        return 2;
      }
      retentionDays = parsed.data;
    }
  } catch (error) {
    if (error instanceof SettingsError) {
      console.error(`retention: ${error.message}`);
      return 2;
    }
    throw error;
  }
  try {
    const report = await purgeExpiredPayloads(await db(), { retentionDays, dryRun: args.includes("--dry-run") });
    console.log(args.includes("--json") ? JSON.stringify(report) : formatRetentionReport(report));
    return 0;
  } finally {
    await closeDb();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`retention: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
