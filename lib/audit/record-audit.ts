import type { Actor } from "@/lib/auth/roles";
import type { Db, Tx } from "@/lib/db/client";

/** What an audited dashboard action did. `note` is the person's own words (bounded), never a secret. */
export interface AuditInput {
  action: string;
  targetType: string;
  targetId: string;
  note?: string | null;
}

/** Writes one audit row for `actor` (inside `client`'s transaction when given one). Throws database errors. */
export async function recordAudit(client: Db | Tx, actor: Pick<Actor, "id" | "email">, input: AuditInput, at = new Date()): Promise<void> {
  await client.auditEntry.create({
    data: { at, actorId: actor.id, actorEmail: actor.email, action: input.action, targetType: input.targetType, targetId: input.targetId, note: input.note?.slice(0, 1000) ?? null },
  });
}

/** The audit trail of one target, newest first (shown beside a dead letter or review item). */
export async function auditTrail(client: Db, targetType: string, targetId: string) {
  return client.auditEntry.findMany({ where: { targetType, targetId }, orderBy: { at: "desc" }, take: 50 });
}
