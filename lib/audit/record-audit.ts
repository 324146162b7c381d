import type { Db, Tx } from "@/lib/db/client";
import { reasonColumns, type Because } from "@/lib/reasons/reason-codes";

/**
 * What an audited dashboard action did. `note` is either the person's own words (bounded, stored as
 * written) or a sentence the system wrote, given as a reason code ({@link Because}) so the audit page
 * shows it in the reader's locale. Never a secret.
 */
export interface AuditInput {
  action: string;
  targetType: string;
  targetId: string;
  note?: string | Because | null;
}

/** Writes one audit row for `actor` (inside `client`'s transaction when given one). Throws database errors. */
export async function recordAudit(client: Db | Tx, actor: { id: string; email: string }, input: AuditInput, at = new Date()): Promise<void> {
  const coded = typeof input.note === "object" && input.note !== null ? input.note : undefined;
  const note = coded ? coded.reason : typeof input.note === "string" ? input.note : null;
  const { reasonCode: noteCode, reasonParams: noteParams } = reasonColumns(coded?.reasonRef);
  await client.auditEntry.create({
    data: { at, actorId: actor.id, actorEmail: actor.email, action: input.action, targetType: input.targetType, targetId: input.targetId, note: note?.slice(0, 1000) ?? null, noteCode, noteParams },
  });
}

