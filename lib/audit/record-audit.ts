import type { Db, Tx } from "@/lib/db/client";
import type { SqlSession } from "@/lib/db/driver";
import { newRowId } from "@/lib/db/row-id";
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

/**
 * Who did it, and in which organization: the row belongs to that organization (only its members see
 * it). A system actor (retention, a CLI) acts in the organization whose data it touched.
 */
export interface AuditActor {
  id: string;
  email: string;
  organizationId: string;
}

/** Writes one audit row for `actor` (inside `client`'s transaction when given one). Throws database errors. */
export async function recordAudit(client: Db | Tx, actor: AuditActor, input: AuditInput, at = new Date()): Promise<void> {
  const coded = typeof input.note === "object" && input.note !== null ? input.note : undefined;
  const note = coded ? coded.reason : typeof input.note === "string" ? input.note : null;
  const { reasonCode: noteCode, reasonParams: noteParams } = reasonColumns(coded?.reasonRef);
  await client.auditEntry.create({
    data: { organizationId: actor.organizationId, at, actorId: actor.id, actorEmail: actor.email, action: input.action, targetType: input.targetType, targetId: input.targetId, note: note?.slice(0, 1000) ?? null, noteCode, noteParams },
  });
}


/**
 * {@link recordAudit} in the caller's driver transaction (lib/db/driver.ts): the audit row commits or
 * rolls back with the change it records (a replay's apply). Same columns and bounds; the id is a ULID
 * of `at`. Throws the database's errors.
 */
export async function recordAuditIn(session: SqlSession, actor: AuditActor, input: AuditInput, at: Date): Promise<void> {
  const coded = typeof input.note === "object" && input.note !== null ? input.note : undefined;
  const note = coded ? coded.reason : typeof input.note === "string" ? input.note : null;
  const { reasonCode: noteCode, reasonParams: noteParams } = reasonColumns(coded?.reasonRef);
  await session.run(
    `INSERT INTO "AuditEntry" ("id", "organizationId", "at", "actorId", "actorEmail", "action", "targetType", "targetId", "note", "noteCode", "noteParams") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [newRowId(at), actor.organizationId, at, actor.id, actor.email, input.action, input.targetType, input.targetId, note?.slice(0, 1000) ?? null, noteCode, noteParams],
  );
}
