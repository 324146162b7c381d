import { createHash, randomBytes, randomUUID } from "node:crypto";
import { z } from "zod";
import { recordAudit } from "@/lib/audit/record-audit";
import { assertCan, roleSchema, type Actor, type Role } from "@/lib/auth/roles";
import type { Db } from "@/lib/db/client";
import { because } from "@/lib/reasons/reason-codes";

/** Every key starts with this, so a leaked one is recognisable (secret scanners, logs) and told from API_TOKEN. */
export const API_KEY_PREFIX = "acr_";
/** Characters of the key kept in clear (`start`) to tell keys apart in the admin page. */
const SHOWN_CHARACTERS = 10;
/** A key's last use is written at most this often (a busy client must not write on every request). */
const LAST_USED_RESOLUTION_MS = 60_000;

/** SHA-256 of the key, hex: what is stored. A key has 256 random bits, so a fast hash is enough (no guessing). */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** A new key for an owner: a name to recognise it, and its validity in days (1..365). */
export const newApiKeySchema = z.object({
  userId: z.string().min(1).max(64),
  name: z.string().trim().min(1).max(100),
  days: z.coerce.number().int().min(1).max(365),
});
export type NewApiKey = z.infer<typeof newApiKeySchema>;

/** A key as the admin page lists it (never the key or its hash). */
export interface ApiKeyView {
  id: string;
  name: string;
  start: string;
  userId: string;
  ownerEmail: string;
  ownerRole: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/**
 * Admin creates an API key for `userId` (checks `users.manage`, audits `api_key.create`). Returns the
 * key in clear ONCE (only its SHA-256 is stored) with its view, or `not_found` when the owner does not
 * exist or is deactivated. Throws ForbiddenError.
 */
export async function createApiKeyAs(db: Db, actor: Actor, input: NewApiKey, now = new Date()): Promise<{ kind: "created"; key: string; view: ApiKeyView } | { kind: "not_found" }> {
  assertCan(actor, "users.manage");
  const owner = await db.user.findUnique({ where: { id: input.userId }, select: { email: true, role: true, banned: true } });
  if (!owner || owner.banned) return { kind: "not_found" };
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
  const row = await db.apiKey.create({
    data: {
      id: randomUUID(),
      name: input.name,
      start: key.slice(0, SHOWN_CHARACTERS),
      keyHash: hashApiKey(key),
      userId: input.userId,
      createdById: actor.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + input.days * 86_400_000),
    },
  });
  await recordAudit(db, actor, { action: "api_key.create", targetType: "api_key", targetId: row.id, note: because("audit_api_key_created", { name: row.name, start: row.start, email: owner.email, days: input.days }) });
  return { kind: "created", key, view: { ...row, ownerEmail: owner.email, ownerRole: owner.role } };
}

/** Admin revokes a key at once (checks `users.manage`, audits `api_key.revoke`). Throws ForbiddenError. */
export async function revokeApiKeyAs(db: Db, actor: Actor, id: string, now = new Date()): Promise<"revoked" | "not_found"> {
  assertCan(actor, "users.manage");
  const { count } = await db.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } });
  if (count === 0) return "not_found";
  await recordAudit(db, actor, { action: "api_key.revoke", targetType: "api_key", targetId: id });
  return "revoked";
}

/** Every key, newest first, with its owner (admin page). */
export async function listApiKeys(db: Db): Promise<ApiKeyView[]> {
  const rows = await db.apiKey.findMany({ orderBy: { createdAt: "desc" }, take: 500, include: { user: { select: { email: true, role: true } } } });
  return rows.map(({ user, keyHash: _hash, createdById: _by, ...row }) => ({ ...row, ownerEmail: user.email, ownerRole: user.role }));
}

/** Who a valid API key acts for: its owner, with the owner's role now. */
export interface ApiKeyCaller {
  keyId: string;
  keyStart: string;
  userId: string;
  email: string;
  role: Role;
}

/**
 * The owner a presented key acts for, or null: unknown, revoked, expired, owner deactivated (banned)
 * or holding an unknown role. Looked up by its SHA-256 (UNIQUE), so the key itself is never compared
 * or stored. Records the last use (at most once a minute per key).
 */
export async function authenticateApiKey(db: Db, key: string, now = new Date()): Promise<ApiKeyCaller | null> {
  if (!key.startsWith(API_KEY_PREFIX) || key.length > 200) return null;
  const row = await db.apiKey.findUnique({ where: { keyHash: hashApiKey(key) }, include: { user: { select: { id: true, email: true, role: true, banned: true, banExpires: true } } } });
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt <= now)) return null;
  const banned = row.user.banned === true && (!row.user.banExpires || row.user.banExpires > now);
  if (banned) return null;
  const role = roleSchema.safeParse(row.user.role);
  if (!role.success) return null;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await db.apiKey.update({ where: { id: row.id }, data: { lastUsedAt: now } });
  }
  return { keyId: row.id, keyStart: row.start, userId: row.user.id, email: row.user.email, role: role.data };
}
