import { createHash, randomBytes, randomUUID } from "node:crypto";
import { z } from "zod";
import { recordAudit } from "@/lib/audit/record-audit";
import { assertCan, assertDefaultOrganization, isRole, ROLES, roleSchema, type Actor, type Role } from "@/lib/auth/roles";
import type { Db } from "@/lib/db/client";
import { membershipRole } from "@/lib/organizations/memberships";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";
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
  userId: string | null;
  /** The owner's e-mail; null for a key the operator made through the API. */
  ownerEmail: string | null;
  /** The key's role: its own, else its owner's. */
  ownerRole: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/**
 * Admin creates an API key for `userId` in the default organization (the dashboard's Users page; checks
 * `users.manage`, audits `api_key.create`). The key acts with its owner's role there (stored role null).
 * Returns the key in clear ONCE (only its SHA-256 is stored) with its view, or `not_found` when the owner
 * does not exist, is deactivated, or is not a member of the default organization. Throws ForbiddenError.
 */
export async function createApiKeyAs(db: Db, actor: Actor, input: NewApiKey, now = new Date()): Promise<{ kind: "created"; key: string; view: ApiKeyView } | { kind: "not_found" }> {
  assertCan(actor, "users.manage");
  assertDefaultOrganization(actor);
  const owner = await db.user.findUnique({ where: { id: input.userId }, select: { email: true, banned: true } });
  const ownerRole = owner ? await membershipRole(db, input.userId, DEFAULT_ORGANIZATION.id) : null;
  if (!owner || owner.banned || ownerRole === null) return { kind: "not_found" };
  const key = newKey();
  const row = await db.apiKey.create({
    data: {
      id: randomUUID(),
      name: input.name,
      start: key.slice(0, SHOWN_CHARACTERS),
      keyHash: hashApiKey(key),
      userId: input.userId,
      organizationId: DEFAULT_ORGANIZATION.id,
      createdById: actor.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + input.days * 86_400_000),
    },
  });
  await recordAudit(db, actor, { action: "api_key.create", targetType: "api_key", targetId: row.id, note: because("audit_api_key_created", { name: row.name, start: row.start, email: owner.email, days: input.days }) });
  const { keyHash: _hash, createdById: _by, role: _role, organizationId: _org, ...view } = row;
  return { kind: "created", key, view: { ...view, userId: input.userId, ownerEmail: owner.email, ownerRole } };
}

/** A new key in clear: the prefix and 256 random bits. */
function newKey(): string {
  return `${API_KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
}

/** Longest validity of a key made through the API, as on the Users page (days). */
const MAX_KEY_DAYS = 365;

/**
 * `POST /api/api-keys`'s body: a name, the key's role, and an optional expiry (ISO 8601, in the future,
 * at most 365 days away; without it `API_KEY_DEFAULT_DAYS` from now).
 */
export const organizationApiKeySchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    role: roleSchema,
    expiresAt: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();
export type OrganizationApiKeyInput = z.infer<typeof organizationApiKeySchema>;

/** Who makes a key through the API: the operator (API_TOKEN), or an organization's admin (a person, or a key) with its owner. */
export interface KeyCreator {
  /** The audit actor. */
  id: string;
  email: string;
  /** The person the new key belongs to (the creating admin, or the creating key's owner); null for the operator or an ownerless key. */
  ownerId: string | null;
  /** The creator's role in the organization; undefined for the operator (any role). */
  role?: Role;
}

/** A key as `GET /api/api-keys` lists it (never the key or its hash). */
export interface OrganizationApiKeyView {
  id: string;
  name: string;
  start: string;
  /** The key's own role; null: its owner's role in the organization. */
  role: Role | null;
  /** The owner's e-mail; null for a key the operator made. */
  owner: string | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const isoOrNull = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * Creates an API key that acts only in `organizationId` with `input.role` (`POST /api/api-keys`; the
 * route has checked the creator holds `users.manage` there, or is the operator). A key never holds more
 * than its creator's role (an admin may make any role); it belongs to `creator.ownerId` (so it stops
 * with that person's membership or deactivation, and is capped by their role), or to nobody when the
 * operator made it. Audits `api_key.create`. Returns the key in clear ONCE (only its SHA-256 is
 * stored) with its view, or `invalid` (the expiry is past or more than 365 days away; a role above the
 * creator's).
 */
export async function createOrganizationApiKey(db: Db, organizationId: string, creator: KeyCreator, input: OrganizationApiKeyInput, options: { now?: Date; defaultDays?: number } = {}): Promise<{ kind: "created"; key: string; view: OrganizationApiKeyView } | { kind: "invalid"; message: string }> {
  const now = options.now ?? new Date();
  if (creator.role !== undefined && ROLES.indexOf(input.role) > ROLES.indexOf(creator.role)) return { kind: "invalid", message: `role: above your own role (${creator.role})` };
  const expiresAt = input.expiresAt ? new Date(input.expiresAt) : new Date(now.getTime() + (options.defaultDays ?? 90) * 86_400_000);
  if (expiresAt.getTime() <= now.getTime()) return { kind: "invalid", message: "expiresAt: must be in the future" };
  if (expiresAt.getTime() > now.getTime() + MAX_KEY_DAYS * 86_400_000) return { kind: "invalid", message: `expiresAt: at most ${MAX_KEY_DAYS} days from now` };
  const key = newKey();
  const id = randomUUID();
  const row = await db.$transaction(async (tx) => {
    const created = await tx.apiKey.create({
      data: { id, name: input.name, start: key.slice(0, SHOWN_CHARACTERS), keyHash: hashApiKey(key), userId: creator.ownerId, organizationId, role: input.role, createdById: creator.id, createdAt: now, expiresAt },
      include: { user: { select: { email: true } } },
    });
    await recordAudit(tx, { ...creator, organizationId }, { action: "api_key.create", targetType: "api_key", targetId: id, note: `${input.name} (${created.start}…) ${input.role} until ${expiresAt.toISOString()}` }, now);
    return created;
  });
  return { kind: "created", key, view: organizationKeyView(row) };
}

function organizationKeyView(row: { id: string; name: string; start: string; role: string | null; createdAt: Date; expiresAt: Date | null; lastUsedAt: Date | null; revokedAt: Date | null; user: { email: string } | null }): OrganizationApiKeyView {
  return {
    id: row.id,
    name: row.name,
    start: row.start,
    role: row.role !== null && isRole(row.role) ? row.role : null,
    owner: row.user?.email ?? null,
    createdAt: row.createdAt.toISOString(),
    expiresAt: isoOrNull(row.expiresAt),
    lastUsedAt: isoOrNull(row.lastUsedAt),
    revokedAt: isoOrNull(row.revokedAt),
  };
}

/** The keys of one organization, newest first (`GET /api/api-keys`): never a key or its hash. */
export async function listOrganizationApiKeys(db: Db, organizationId: string): Promise<{ data: OrganizationApiKeyView[]; count: number }> {
  const rows = await db.apiKey.findMany({ where: { organizationId }, orderBy: [{ createdAt: "desc" }, { id: "asc" }], take: 500, include: { user: { select: { email: true } } } });
  return { data: rows.map(organizationKeyView), count: rows.length };
}

/** Admin revokes a key at once (checks `users.manage`, audits `api_key.revoke`). Throws ForbiddenError. */
export async function revokeApiKeyAs(db: Db, actor: Actor, id: string, now = new Date()): Promise<"revoked" | "not_found"> {
  assertCan(actor, "users.manage");
  const { count } = await db.apiKey.updateMany({ where: { id, organizationId: actor.organizationId, revokedAt: null }, data: { revokedAt: now } });
  if (count === 0) return "not_found";
  await recordAudit(db, actor, { action: "api_key.revoke", targetType: "api_key", targetId: id });
  return "revoked";
}

/** The default organization's keys, newest first, with their owner (the Users page, which acts there). */
export async function listApiKeys(db: Db): Promise<ApiKeyView[]> {
  const rows = await db.apiKey.findMany({ where: { organizationId: DEFAULT_ORGANIZATION.id }, orderBy: { createdAt: "desc" }, take: 500, include: { user: { select: { email: true, role: true } } } });
  return rows.map(({ user, keyHash: _hash, createdById: _by, organizationId: _org, role, ...row }) => ({ ...row, ownerEmail: user?.email ?? null, ownerRole: role ?? user?.role ?? "" }));
}

/** Who a valid API key acts for: its owner (null for a key the operator made), in its organization, with its role now. */
export interface ApiKeyCaller {
  keyId: string;
  keyStart: string;
  userId: string | null;
  /** The owner's e-mail; for an ownerless key, a label naming the key. */
  email: string;
  role: Role;
  organizationId: string;
  organizationSlug: string;
}

/** The lower of two roles (a key never holds more than its owner). */
function lowerRole(a: Role, b: Role): Role {
  return ROLES.indexOf(a) <= ROLES.indexOf(b) ? a : b;
}

/**
 * The caller a presented key acts for, or null: unknown, revoked, expired, owner deactivated (banned)
 * or no longer a member of the key's organization, or holding an unknown role. The role is the key's
 * own capped by its owner's membership role in the key's organization (the owner's role when the key
 * has none; the key's own when the operator made it). Looked up by its SHA-256 (UNIQUE), so the key
 * itself is never compared or stored. Records the last use (at most once a minute per key).
 */
export async function authenticateApiKey(db: Db, key: string, now = new Date()): Promise<ApiKeyCaller | null> {
  if (!key.startsWith(API_KEY_PREFIX) || key.length > 200) return null;
  const row = await db.apiKey.findUnique({
    where: { keyHash: hashApiKey(key) },
    include: { user: { select: { id: true, email: true, banned: true, banExpires: true } }, organization: { select: { slug: true } } },
  });
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt <= now)) return null;
  let role: Role | null = row.role !== null && isRole(row.role) ? row.role : null;
  if (row.role !== null && role === null) return null;
  if (row.user) {
    const banned = row.user.banned === true && (!row.user.banExpires || row.user.banExpires > now);
    if (banned) return null;
    const owner = await membershipRole(db, row.user.id, row.organizationId);
    if (owner === null || !isRole(owner)) return null;
    role = role === null ? owner : lowerRole(role, owner);
  }
  if (role === null) return null;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await db.apiKey.update({ where: { id: row.id }, data: { lastUsedAt: now } });
  }
  return { keyId: row.id, keyStart: row.start, userId: row.user?.id ?? null, email: row.user?.email ?? `API key ${row.start}…`, role, organizationId: row.organizationId, organizationSlug: row.organization.slug };
}
