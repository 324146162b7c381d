"use server";
// Settlement upload: `reconciliation.run` checked inside, the file validated (size, CSV rows with line
// numbers by lib/reconciliation), the run stored, then the browser goes to the run's page.
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { z } from "zod";
import { recordAudit } from "@/lib/audit/record-audit";
import { answer, runAction, type ActionResult } from "@/lib/auth/run-action";
import { db } from "@/lib/db/client";
import { reconcile } from "@/lib/reconciliation/reconcile";
import { readSettlementCsv, SettlementCsvError } from "@/lib/reconciliation/settlement-csv";

/** Largest settlement accepted through the page (the action's body limit is 10 MB, next.config.mjs). */
const MAX_SETTLEMENT_BYTES = 8 * 1024 * 1024;

const uploadSchema = z.object({
  file: z
    .instanceof(File)
    .refine((file) => file.size > 0, "choose a non-empty CSV file")
    .refine((file) => file.size <= MAX_SETTLEMENT_BYTES, `at most ${MAX_SETTLEMENT_BYTES / 1024 / 1024} MB`),
  source: z.string().trim().max(100).optional(),
});

export async function uploadSettlementAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  const result = await runAction("reconciliation.run", uploadSchema, { file: formData.get("file"), source: formData.get("source") || undefined }, async (actor, { file, source }) => {
    const t = await getTranslations("reconciliation");
    const label = source || file.name || "upload";
    const client = await db();
    try {
      const report = await reconcile(client, readSettlementCsv(Buffer.from(await file.arrayBuffer())), label);
      await recordAudit(client, actor, { action: "reconciliation.run", targetType: "reconciliation_run", targetId: report.runId, note: `${label}: ${report.mismatches.length} mismatches` });
      revalidatePath("/reconciliation");
      return { ...answer("ok", []), redirectTo: `/reconciliation/${report.runId}` };
    } catch (error) {
      if (error instanceof SettlementCsvError) return answer("bad", [t("badRows"), t("line", { line: error.line, message: error.problem })]);
      throw error;
    }
  });
  // redirect() throws to navigate, so it runs here, outside runAction's error handling.
  if (result.ok && result.redirectTo) redirect(result.redirectTo);
  return result;
}
