import { z } from "zod";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/default-organization";

/** Dashboard roles, from least to most trusted: each one can do what the previous can. */
export const ROLES = ["merchant", "support", "admin"] as const;
export type Role = (typeof ROLES)[number];
export const roleSchema = z.enum(ROLES);

/** Whether a stored role string is one of {@link ROLES} (a row written by another version may hold another). */
export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/**
 * What a role may do. merchant: read orders, decisions and reconciliation, run a reconciliation, open a
 * stored event (its decisions, ledger entries, header names; not its payload), export the lists as CSV;
 * support: also retry, assign and resolve dead letters and review items, read the operational metrics
 * and the endpoints' health (no secret value, only labels), and read personal data (`payloads.read`: a
 * stored event's payload, customers' e-mails, and searching orders by one); admin: also create orders,
 * manage users and API keys, and manage the endpoints stored as data (create, disable, delete, rotate
 * their signing secrets). Alerts: support reads the incidents and channels (`alerts.read`), admin adds and
 * removes channels and changes the rules (`alerts.manage`). `organizations.manage` (creating organizations) is no role's: only the
 * operator's API_TOKEN, which may do everything, and the `npm run orgs` command.
 */
export type Permission =
  | "orders.read"
  | "decisions.read"
  | "reconciliation.read"
  | "reconciliation.run"
  | "dead_letters.read"
  | "dead_letters.manage"
  | "review.read"
  | "review.manage"
  | "orders.create"
  | "metrics.read"
  | "endpoints.read"
  | "payloads.read"
  | "users.manage"
  | "endpoints.manage"
  | "alerts.read"
  | "alerts.manage"
  | "organizations.manage";

// Each role holds the one below it and more: support what merchants may, admin what support may.
const MERCHANT: Permission[] = ["orders.read", "decisions.read", "reconciliation.read", "reconciliation.run", "dead_letters.read", "review.read"];
// Payloads and e-mails are the customers' personal data: the people who answer them (support) see them,
// a merchant's viewer account does not (GDPR art. 5(1)(c), data minimisation).
const SUPPORT: Permission[] = [...MERCHANT, "dead_letters.manage", "review.manage", "metrics.read", "endpoints.read", "payloads.read", "alerts.read"];
const ADMIN: Permission[] = [...SUPPORT, "orders.create", "users.manage", "endpoints.manage", "alerts.manage"];

const GRANTS: Record<Role, ReadonlySet<Permission>> = { merchant: new Set(MERCHANT), support: new Set(SUPPORT), admin: new Set(ADMIN) };

/** The signed-in person an action runs for. `role` comes from the database, never from the request. */
export interface Actor {
  id: string;
  email: string;
  name: string;
  /** The role in the organization the request acts in. */
  role: Role;
  /** The organization the request acts in: every read and write is scoped to it. */
  organizationId: string;
  /** Its slug: what the dashboard's addresses name it by (absent where no address is involved: a CLI, a test). */
  organizationSlug?: string;
}

/** True when `role` grants `permission`. An unknown role (a hand-edited row) grants nothing. */
export function can(role: string, permission: Permission): boolean {
  const parsed = roleSchema.safeParse(role);
  return parsed.success && GRANTS[parsed.data].has(permission);
}

/** Raised when an actor lacks a permission; mapped to 403 (API) or a "not allowed" message (actions). */
export class ForbiddenError extends Error {
  readonly code = "forbidden";
  constructor(readonly permission: Permission) {
    super(`not allowed: ${permission}`);
    this.name = "ForbiddenError";
  }
}

/** Throws {@link ForbiddenError} unless `actor` may do `permission`. Every mutating lib function calls it. */
export function assertCan(actor: Pick<Actor, "role"> | null | undefined, permission: Permission): void {
  if (!actor || !can(actor.role, permission)) throw new ForbiddenError(permission);
}

/**
 * The Users page manages the default organization's people (better-auth's admin calls work on its
 * mirror of their role, User.role): an admin acting in another organization is refused here, whatever
 * posts the action. Another organization's members are made with `npm run create-user -- --org`.
 * Throws ForbiddenError.
 */
export function assertDefaultOrganization(actor: Actor): void {
  if (actor.organizationId !== DEFAULT_ORGANIZATION.id) throw new ForbiddenError("users.manage");
}
