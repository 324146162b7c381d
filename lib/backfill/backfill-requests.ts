// A backfill asked for by a person (the Endpoints page's button) or an API caller
// (`POST /api/endpoints/<id>/backfill`): checked and queued here, run by a worker
// (lib/backfill/gap-check.ts, BackfillRequestWorker), never inside the web request.
import { z } from "zod";
import { recordAudit } from "@/lib/audit/record-audit";
import { can } from "@/lib/auth/roles";
import type { Db } from "@/lib/db/client";
import { stripeApiTarget } from "@/lib/endpoints/api-endpoints";
import { isDataEndpointId } from "@/lib/endpoints/data-endpoint-ids";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/default-organization";
import { latestBackfills, queueBackfill, type GapCheckView } from "@/lib/monitoring/gap-checks";
import { because } from "@/lib/reasons/reason-codes";

/** The window a backfill asked for by hand lists by default (hours): Stripe retries a live delivery for three days. */
export const DEFAULT_BACKFILL_HOURS = 72;

/** The longest window (hours): Stripe keeps events listable for 30 days. */
export const MAX_BACKFILL_HOURS = 720;

/** `POST /api/endpoints/<id>/backfill`'s body. */
export const backfillRequestSchema = z.object({ sinceHours: z.number().int().min(1).max(MAX_BACKFILL_HOURS).optional() }).strict();

/** Who asks: the operator (API_TOKEN) or a person / API key with a role, in the organization it acts in. */
export interface BackfillActor {
  id: string;
  email: string;
  organizationId: string;
  operator: boolean;
  role?: string;
}

/** Why a backfill cannot be asked for: each maps to one HTTP status (403, 404, 409). */
export type BackfillRefusal =
  | { kind: "forbidden"; message: string }
  | { kind: "not_found"; message: string }
  | { kind: "conflict"; code: "api_key_missing" | "not_stripe" | "endpoint_unusable"; message: string };

/**
 * Queues a backfill of endpoint `id` (a data endpoint of the actor's organization, or an
 * environment-configured one when the actor acts in the default organization, which owns those) over
 * the last `sinceHours` hours (default {@link DEFAULT_BACKFILL_HOURS}): a worker lists the account's
 * events in that window with the endpoint's API key and stores those the inbox lacks (decision source
 * `backfill`). While one is queued or running for the endpoint, that one is returned instead
 * (`created` false). Audited as `endpoint.backfill`. Returns the run as it stands, or a refusal:
 * forbidden (no `endpoints.manage`), not_found (no such endpoint here), conflict `api_key_missing`,
 * `not_stripe` or `endpoint_unusable` (misconfigured, or its key does not decrypt). Throws database errors.
 */
export async function requestBackfill(
  db: Db,
  id: string,
  actor: BackfillActor,
  options: { sinceHours?: number; now?: Date; env?: Record<string, string | undefined> } = {},
): Promise<{ kind: "queued"; created: boolean; run: GapCheckView } | BackfillRefusal> {
  if (!actor.operator && !(actor.role !== undefined && can(actor.role, "endpoints.manage"))) return { kind: "forbidden", message: "your role does not allow managing endpoints" };
  const now = options.now ?? new Date();
  const notFound: BackfillRefusal = { kind: "not_found", message: `endpoint ${id.slice(0, 40)} not found` };
  // Another organization's endpoint is not found here, whatever it is: the same answer as one that does not exist.
  const owned = isDataEndpointId(id) ? (await db.endpoint.count({ where: { id, organizationId: actor.organizationId, deletedAt: null } })) === 1 : actor.organizationId === DEFAULT_ORGANIZATION.id;
  if (!owned) return notFound;
  const found = await stripeApiTarget(db, id, options.env ?? process.env, "a backfill reads Stripe's API only", "events", now);
  if ("refusal" in found) {
    if (found.problem === "unknown") return notFound;
    return { kind: "conflict", code: found.problem === "no_key" ? "api_key_missing" : found.problem === "provider" ? "not_stripe" : "endpoint_unusable", message: found.refusal };
  }
  const hours = options.sinceHours ?? DEFAULT_BACKFILL_HOURS;
  const endpoint = { name: found.target.endpoint.name, organizationId: actor.organizationId };
  const queued = await queueBackfill(db, endpoint, new Date(now.getTime() - hours * 3_600_000), now);
  if (queued.created) await recordAudit(db, actor, { action: "endpoint.backfill", targetType: "endpoint", targetId: endpoint.name, note: because("audit_backfill_requested", { hours }) }, now);
  const run = (await latestBackfills(db, actor.organizationId, [endpoint.name])).get(endpoint.name)!;
  return { kind: "queued", created: queued.created, run };
}
