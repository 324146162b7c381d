import { z } from "zod";
import { recordAudit } from "@/lib/audit/record-audit";
import { can } from "@/lib/auth/roles";
import type { Db, Tx } from "@/lib/db/client";
import { isDataEndpointId } from "@/lib/endpoints/data-endpoint-ids";
import { accountBelongsElsewhere, changeEndpoints, type EndpointActor } from "@/lib/endpoints/endpoint-store";
import { DEFAULT_ORGANIZATION, organizationSlugSchema } from "@/lib/organizations/organizations";
import { because } from "@/lib/reasons/reason-codes";

/**
 * A connected account's id as Stripe writes it (`acct_1Q2w3E4r5T6y`): the top-level `account` of a
 * Connect event (docs.stripe.com/connect/webhooks). Held to letters and digits after `acct_`, so it can
 * sit in a URL segment and in the colon-separated business keys.
 */
export const CONNECTED_ACCOUNT_PATTERN = /^acct_[A-Za-z0-9]{1,255}$/;

/** `PUT /api/endpoints/<id>/accounts/<acct>`'s body: the organization (by slug) the account's events belong to; `move` to move an account bound elsewhere. */
export const bindingBodySchema = z.object({ org: organizationSlugSchema, move: z.boolean().optional() }).strict();
export type BindingBody = z.infer<typeof bindingBodySchema>;

/** A binding as the API shows it. */
export interface ConnectBindingView {
  endpointId: string;
  account: string;
  /** The slug of the organization the account's events belong to. */
  org: string;
  createdAt: string;
  createdBy: string;
}

/** Why a binding change or list was refused: each maps to one HTTP status (lib/api/endpoint-answers.ts). */
export type BindingRefusal =
  | { kind: "invalid"; code: "not_connect" | "invalid_account" | "platform_account" | "unknown_org"; message: string }
  | { kind: "forbidden"; message: string }
  | { kind: "not_found"; message: string }
  | { kind: "conflict"; code: "account_bound" | "account_taken"; message: string };

const isRefusal = (value: object): value is BindingRefusal => "kind" in value && "message" in value;

/** The Connect endpoint `id` of `organizationId` (not deleted), or the refusal: 404 for none there, 400 `not_connect` for another kind. */
async function connectEndpoint(client: Db | Tx, organizationId: string, id: string): Promise<{ id: string; account: string; livemode: boolean; provider: string } | BindingRefusal> {
  const endpoint = isDataEndpointId(id) ? await client.endpoint.findFirst({ where: { id, organizationId, deletedAt: null }, select: { id: true, account: true, livemode: true, provider: true, connect: true } }) : null;
  if (!endpoint) return { kind: "not_found", message: `endpoint ${id.slice(0, 40)} not found` };
  if (!endpoint.connect) return { kind: "invalid", code: "not_connect", message: `endpoint ${id} is not a Stripe Connect endpoint: only a Connect endpoint routes connected accounts` };
  return endpoint;
}

/** Refuses an actor who may not manage endpoints (the route checks too; the rule lives here). */
function refusedActor(actor: EndpointActor): BindingRefusal | undefined {
  if (actor.operator || (actor.role !== undefined && can(actor.role, "endpoints.manage"))) return undefined;
  return { kind: "forbidden", message: "your role does not allow managing endpoints" };
}

/** 400 `invalid_account` for an account that is not a Stripe connected account id (never echoing more than 40 characters of it). */
function accountRefusal(account: string): BindingRefusal | undefined {
  if (CONNECTED_ACCOUNT_PATTERN.test(account)) return undefined;
  return { kind: "invalid", code: "invalid_account", message: `account: ${account.slice(0, 40)} is not a Stripe connected account id (acct_ and 1 to 255 letters or digits)` };
}

/**
 * Binds a connected account of a Stripe Connect endpoint to the organization whose slug `body.org`
 * names: from then on (within a second on every process) an event of that account delivered to the
 * endpoint is that organization's, keyed and booked under the connected account (Stripe Connect: the
 * event's top-level `account`). The endpoint is looked up in `organizationId` (the caller's: another
 * organization's endpoint is 404). Binding again to the same organization changes nothing (200). An
 * account bound to another organization is refused (409 `account_bound`) unless `body.move` is true,
 * which moves it (its earlier events and books stay where they were booked). Audited in the caller's
 * organization as `connect.bind` / `connect.move`.
 * Only the operator binds to another organization than the endpoint's own (its admins bind to their own).
 * Returns the binding and whether it is new, or a refusal: forbidden 403, not_found 404, invalid 400
 * (`not_connect`, `invalid_account`, `platform_account`: the endpoint's own account, whose events are the
 * platform's; `unknown_org` naming the slug), conflict 409 (`account_bound`; `account_taken`: the
 * account, in the endpoint's mode, belongs to another organization through its own endpoint or another
 * Connect endpoint's binding). Throws the database's errors.
 */
export async function bindConnectAccount(db: Db, endpointId: string, account: string, body: BindingBody, actor: EndpointActor, options: { organizationId?: string; now?: Date } = {}): Promise<{ kind: "bound"; created: boolean; binding: ConnectBindingView } | BindingRefusal> {
  const refused = refusedActor(actor) ?? accountRefusal(account);
  if (refused) return refused;
  const now = options.now ?? new Date();
  const organizationId = options.organizationId ?? DEFAULT_ORGANIZATION.id;
  const target = await db.organization.findUnique({ where: { slug: body.org }, select: { id: true, slug: true } });
  // A binding writes a connected account's money events into an organization's books: only the
  // operator, who created the Connect endpoint, may route them to another organization than the
  // endpoint's own. Anyone else gets the same answer whether that organization exists or not.
  if (!actor.operator && target?.id !== organizationId) return { kind: "forbidden", message: "org: only the operator (API_TOKEN) binds a connected account to another organization than the endpoint's own" };
  if (!target) return { kind: "invalid", code: "unknown_org", message: `org: no organization has the slug ${body.org}` };
  return changeEndpoints(db, async (tx) => {
    const endpoint = await connectEndpoint(tx, organizationId, endpointId);
    if (isRefusal(endpoint)) return endpoint;
    if (account === endpoint.account) return { kind: "invalid", code: "platform_account", message: `account: ${account} is the endpoint's own account: its events are the platform's, and belong to the endpoint's organization without a binding` } satisfies BindingRefusal;
    const existing = await tx.connectBinding.findUnique({ where: { endpointId_account: { endpointId, account } }, select: { organizationId: true, createdAt: true, createdBy: true, organization: { select: { slug: true } } } });
    if (existing && existing.organizationId === target.id) {
      return { kind: "bound" as const, created: false, binding: { endpointId, account, org: target.slug, createdAt: existing.createdAt.toISOString(), createdBy: existing.createdBy } };
    }
    if (existing && !body.move) {
      return { kind: "conflict", code: "account_bound", message: `account: ${account} is bound to organization ${existing.organization.slug}; send {"org": "${target.slug}", "move": true} to move it (its earlier events and books stay in ${existing.organization.slug})` } satisfies BindingRefusal;
    }
    if (await accountBelongsElsewhere(tx, target.id, { provider: endpoint.provider, account, livemode: endpoint.livemode }, process.env, { exceptBindingOf: endpointId })) {
      return { kind: "conflict", code: "account_taken", message: `account: stripe account ${account} (${endpoint.livemode ? "live" : "test"}) belongs to another organization; an account's events belong to one organization` } satisfies BindingRefusal;
    }
    const data = { organizationId: target.id, createdAt: now, createdBy: actor.email };
    if (existing) await tx.connectBinding.update({ where: { endpointId_account: { endpointId, account } }, data });
    else await tx.connectBinding.create({ data: { endpointId, account, ...data } });
    const note = existing ? because("audit_connect_moved", { account, from: existing.organization.slug, org: target.slug }) : because("audit_connect_bound", { account, org: target.slug });
    await recordAudit(tx, { ...actor, organizationId }, { action: existing ? "connect.move" : "connect.bind", targetType: "endpoint", targetId: endpointId, note }, now);
    return { kind: "bound" as const, created: !existing, binding: { endpointId, account, org: target.slug, createdAt: now.toISOString(), createdBy: actor.email } };
  });
}

/**
 * Unbinds a connected account: from then on (within a second on every process) its events delivered to
 * the endpoint are answered 200 and recorded `ignored` (`account_not_bound`); what was booked stays.
 * Audited in the caller's organization as `connect.unbind`. Returns `unbound`, or a refusal: forbidden,
 * not_found (the endpoint, or no binding of that account), invalid (`not_connect`, `invalid_account`).
 * Throws the database's errors.
 */
export async function unbindConnectAccount(db: Db, endpointId: string, account: string, actor: EndpointActor, options: { organizationId?: string; now?: Date } = {}): Promise<{ kind: "unbound" } | BindingRefusal> {
  const refused = refusedActor(actor) ?? accountRefusal(account);
  if (refused) return refused;
  const now = options.now ?? new Date();
  const organizationId = options.organizationId ?? DEFAULT_ORGANIZATION.id;
  return changeEndpoints(db, async (tx) => {
    const endpoint = await connectEndpoint(tx, organizationId, endpointId);
    if (isRefusal(endpoint)) return endpoint;
    const existing = await tx.connectBinding.findUnique({ where: { endpointId_account: { endpointId, account } }, select: { organization: { select: { slug: true } } } });
    if (!existing) return { kind: "not_found", message: `account ${account} is not bound on endpoint ${endpointId}` } satisfies BindingRefusal;
    await tx.connectBinding.delete({ where: { endpointId_account: { endpointId, account } } });
    await recordAudit(tx, { ...actor, organizationId }, { action: "connect.unbind", targetType: "endpoint", targetId: endpointId, note: because("audit_connect_unbound", { account, org: existing.organization.slug }) }, now);
    return { kind: "unbound" as const };
  });
}

/**
 * The bindings of a Connect endpoint of `organizationId`, oldest first, as `{data, count}`; or a
 * refusal: not_found (404), invalid `not_connect` (400). Throws the database's errors.
 */
export async function listConnectBindings(db: Db, endpointId: string, options: { organizationId?: string } = {}): Promise<{ kind: "list"; data: ConnectBindingView[]; count: number } | BindingRefusal> {
  const endpoint = await connectEndpoint(db, options.organizationId ?? DEFAULT_ORGANIZATION.id, endpointId);
  if (isRefusal(endpoint)) return endpoint;
  const rows = await db.connectBinding.findMany({ where: { endpointId }, orderBy: [{ createdAt: "asc" }, { account: "asc" }], select: { account: true, createdAt: true, createdBy: true, organization: { select: { slug: true } } } });
  const data = rows.map((row) => ({ endpointId, account: row.account, org: row.organization.slug, createdAt: row.createdAt.toISOString(), createdBy: row.createdBy }));
  return { kind: "list", data, count: data.length };
}
