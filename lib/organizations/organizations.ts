import { randomInt } from "node:crypto";
import { z } from "zod";
import { recordAudit } from "@/lib/audit/record-audit";
import type { Db, Tx } from "@/lib/db/client";
import { uniqueViolationFields } from "@/lib/db/errors";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/default-organization";

export { DEFAULT_ORGANIZATION };

/** An organization's slug: 2 to 40 of [a-z0-9-] (what the operator, the API header and URLs name it by). */
export const ORGANIZATION_SLUG_PATTERN = /^[a-z0-9-]{2,40}$/;

/** The slug rule as a schema, with the message every refusal shows (CLI, API). */
export const organizationSlugSchema = z.string().regex(ORGANIZATION_SLUG_PATTERN, "2 to 40 characters of a-z, 0-9 and -");

/** `POST /api/orgs`'s body and `npm run orgs -- create`'s flags. */
export const newOrganizationSchema = z.object({ slug: organizationSlugSchema, name: z.string().trim().min(1, "required").max(100, "at most 100 characters") }).strict();
export type NewOrganization = z.infer<typeof newOrganizationSchema>;

/** An organization as the CLI and the API show it. */
export interface OrganizationView {
  id: string;
  slug: string;
  name: string;
}

const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** A new organization id: `org_` + 20 characters of [a-z0-9] from the CSPRNG (never shown as a secret; only unique). */
function newOrganizationId(): string {
  let id = "org_";
  for (let index = 0; index < 20; index++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

/**
 * Creates an organization (the slug's UNIQUE index decides a race: insert first, no read) and audits
 * `organization.create` as `actor` (the operator, from the CLI or `POST /api/orgs`). Takes an already
 * validated {@link NewOrganization}. Returns the organization, or `taken` when the slug exists (409).
 */
export async function createOrganization(db: Db, input: NewOrganization, actor: { id: string; email: string }, now = new Date()): Promise<{ kind: "created"; organization: OrganizationView } | { kind: "taken" }> {
  try {
    const row = await db.$transaction(async (tx) => {
      const created = await tx.organization.create({ data: { id: newOrganizationId(), slug: input.slug, name: input.name, createdAt: now } });
      await recordAudit(tx, { ...actor, organizationId: created.id }, { action: "organization.create", targetType: "organization", targetId: created.id, note: `${input.slug}: ${input.name}` }, now);
      return created;
    });
    return { kind: "created", organization: { id: row.id, slug: row.slug, name: row.name } };
  } catch (error) {
    if (uniqueViolationFields(error)?.includes("slug")) return { kind: "taken" };
    throw error;
  }
}

/** Every organization, oldest first (the default one first), as {@link OrganizationView}s. */
export async function listOrganizations(db: Db): Promise<OrganizationView[]> {
  return db.organization.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: { id: true, slug: true, name: true } });
}

/** The organization of `slug`, or null (also for a string that is not a slug: no read then). */
export async function findOrganizationBySlug(db: Db | Tx, slug: string): Promise<OrganizationView | null> {
  if (!ORGANIZATION_SLUG_PATTERN.test(slug)) return null;
  return db.organization.findUnique({ where: { slug }, select: { id: true, slug: true, name: true } });
}
