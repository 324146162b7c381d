// Every server action of the build, posted across organizations with a forged `Next-Action` header: the
// actions are read from the build's server reference manifest (one case per `<file>#<export>`; an action
// without a case, or a case without an action, fails), and each is posted with a body naming North's
// objects by an admin of West (no member of North) at West's address and at North's, by nobody signed in
// at North's, and by the default organization's admin at the short address. North's objects are read
// from the database after each post and must be exactly as they were; then North's own admin (the
// default organization's, for the Users page, which manages that organization only) posts the same way
// and the action does act, so the bodies are right and the test can fail. Bodies are React's reply
// encoding of `(previousState, formData)`, as Chromium sends a `useActionState` form (captured in
// organizations.spec.ts): the form's fields as `_1_<name>`, and `0` = `[null,"$K1"]`.
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, request as playwrightRequest, test, type APIRequestContext } from "@playwright/test";
import { hashPassword } from "better-auth/crypto";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { addMembership, disableAlertChannels, insertAlertChannel, insertUncertainOutboxRow, insertUser, query } from "./support/database";
import { E2E } from "./support/e2e-env";
import { storageStateOf } from "./support/roles";

const run = randomBytes(3).toString("hex");
const NORTH = { slug: `pa-north-${run}`, name: `North Actions ${run}` };
const WEST = { slug: `pa-west-${run}`, name: `West Actions ${run}` };
const PASSWORD = "copper-lantern-orchard-58";
const operator = { authorization: `Bearer ${E2E.apiToken}` };
const inNorth = { ...operator, "acredita-org": NORTH.slug };
const AT_NORTH = `/o/${NORTH.slug}`;

/** A person of this spec: made in the database, signed in through the API. */
interface Person {
  id: string;
  email: string;
}
const person = (name: string): Person => ({ id: randomUUID(), email: `${name}-${run}@actions.test` });
const northAdmin = person("north-admin");
const westAdmin = person("west-admin");
/** North's own member: what the Users page's actions name across organizations. */
const northMember = person("north-member");
/** Default-organization members, one per Users action that changes its user: its positive control's target. */
const defaultMembers = { role: person("default-role"), active: person("default-active"), sessions: person("default-sessions"), key: person("default-key") };

/** North's dead letters and endpoints: one per action that changes one. */
const DEAD_LETTERS = ["retry", "assign", "resolve", "count", "filter"] as const;
const ENDPOINTS = ["rotate", "status", "delete", "retire"] as const;
/** North's Stripe endpoints the API-access actions name: one without a key, two with one (removed, backfilled). */
const STRIPE_ENDPOINTS = ["setKey", "removeKey", "backfill"] as const;
const NORTH_API_KEY = `rk_live_PaNorth${run.replace(/[^A-Za-z0-9]/g, "")}0123456789`;

/** What the seeding made: North's objects' ids, read by the cases. */
const seeded = {
  northId: "",
  westId: "",
  labAccount: `lab_pa_north_${run}`,
  deadLetters: Object.fromEntries(DEAD_LETTERS.map((which) => [which, { id: "", eventId: "" }])) as Record<(typeof DEAD_LETTERS)[number], { id: string; eventId: string }>,
  endpoints: Object.fromEntries(ENDPOINTS.map((which) => [which, ""])) as Record<(typeof ENDPOINTS)[number], string>,
  stripeEndpoints: Object.fromEntries(STRIPE_ENDPOINTS.map((which) => [which, ""])) as Record<(typeof STRIPE_ENDPOINTS)[number], string>,
  replayId: "",
  paidEventId: `evt_pa_paid_${run}`,
  extraChargeId: "",
  outboxId: `outbox_pa_${run}`,
  channelId: `ach_${randomBytes(13).toString("hex").toUpperCase()}`,
  northKeyId: "",
  defaultKeyId: "",
};

/** The request contexts the posts go out on. */
const contexts = {} as Record<"northAdmin" | "westAdmin" | "defaultAdmin" | "anonymous" | "northMember" | "defaultSessions", APIRequestContext>;

/** A form as plain fields; a list is a repeated field (the bulk retry's `id`). */
type Fields = Record<string, string | string[]>;

/** What came back from a post: the HTTP status, and the action's answer (or the proxy's JSON refusal). */
interface Answer {
  status: number;
  body: unknown;
}

/**
 * The action's answer out of a React Server Components response: the row the root row's `a` points to
 * (`0:{"a":"$@1",...}` then `1:{...}`). Its time (`at`) is dropped; a key or secret made for the answer
 * is replaced by a placeholder, and a list of dead letters by their ids.
 */
function actionAnswer(text: string): unknown {
  const rows = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^([0-9a-f]+):(.*)$/.exec(line);
    if (match) rows.set(match[1], match[2]);
  }
  const root = JSON.parse(rows.get("0") ?? "null") as { a?: string } | null;
  const reference = root?.a?.replace(/^\$@/, "");
  if (reference === undefined || !rows.has(reference)) return { unparsed: text.slice(0, 300) };
  const { at, ...answer } = JSON.parse(rows.get(reference)!) as Record<string, unknown>;
  expect(typeof at).toBe("number");
  for (const name of ["key", "secret"]) if (typeof answer[name] === "string") answer[name] = `(${name})`;
  if (Array.isArray(answer.deadLetters)) answer.deadLetters = (answer.deadLetters as { id: string }[]).map((letter) => letter.id);
  return answer;
}

/**
 * Posts the action `id` to the page `section` of the organization whose address starts with `base`
 * ("" for the default organization), its body encoded as React encodes `(null, formData)`.
 */
async function postAction(context: APIRequestContext, base: string, section: string, id: string, fields: Fields): Promise<Answer> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) for (const one of Array.isArray(value) ? value : [value]) form.append(`_1_${name}`, one);
  form.append("0", JSON.stringify([null, "$K1"]));
  const response = await context.post(`${E2E.baseURL}${base}${section}`, { headers: { "next-action": id, accept: "text/x-component", origin: E2E.baseURL }, multipart: form, maxRedirects: 0 });
  const text = await response.text();
  if (response.headers()["content-type"]?.startsWith("application/json")) return { status: response.status(), body: JSON.parse(text) };
  const redirect = response.headers()["x-action-redirect"];
  return { status: response.status(), body: redirect ? { redirect: redirect.split(";")[0] } : actionAnswer(text) };
}

const bad = (...messages: string[]): Answer => ({ status: 200, body: { ok: false, tone: "bad", messages } });
const ok = (...messages: string[]): Answer => ({ status: 200, body: { ok: true, tone: "ok", messages } });
const info = (...messages: string[]): Answer => ({ status: 200, body: { ok: true, tone: "info", messages } });
/** A signed-in user who is no member of the organization the address names: the action refuses, as to a role without the permission. */
const FORBIDDEN: Answer = { status: 200, body: { ok: false, tone: "bad", code: "forbidden", messages: ["Your role does not allow this."] } };
/** Nobody signed in: proxy.ts answers before Next.js decodes the body. */
const SIGN_IN_FIRST: Answer = { status: 403, body: { error: "sign in first", code: "session_required" } };
const NOT_FOUND = bad("Not found.");
const DEAD_LETTER_NOT_OPEN = bad("This dead letter is not open any more.");

/** One post of an action: who, at which organization's address, with which fields. */
interface Post {
  as: keyof typeof contexts;
  base: string;
  fields: Fields;
}

interface ActionCase {
  /** The `[id]` of the action's page address, when it has one. */
  params?: Record<string, string>;
  /** The objects the posts name, read from the database. */
  state: () => unknown;
  /** Their state after seeding, exactly. */
  initial: unknown;
  /** The form, naming those objects; `moreFields`, other forms naming them (the review queue's two kinds). */
  fields: Fields;
  moreFields?: Fields[];
  /**
   * The answers to West's admin at West's address, and to the default organization's admin at the short
   * one (not tried when absent: an action that names no object acts in the poster's own organization).
   */
  otherAdmins: { west: Answer; default?: Answer };
  /**
   * The positive control: the owner's posts act on the owner's objects (`state`, from `before` to `after`;
   * the case's own `state` and `initial` unless named).
   */
  acts: { posts: Post[]; state?: () => unknown; before?: unknown; answers: Answer[]; after: unknown; cleanUp?: () => void };
}

const one = <T>(rows: T[]): T | undefined => rows[0];
const deadLetterState = (which: keyof typeof seeded.deadLetters) => () => one(query("SELECT status, attempts, owner, resolution, resolvedBy FROM DeadLetter WHERE id = ?", seeded.deadLetters[which].id));
const OPEN_LETTER = { status: "open", attempts: 1, owner: null, resolution: null, resolvedBy: null };
const endpointState = (which: keyof typeof seeded.endpoints) => () => ({
  endpoint: one(query("SELECT status, CASE WHEN deletedAt IS NULL THEN 'kept' ELSE 'deleted' END AS deleted FROM Endpoint WHERE id = ?", seeded.endpoints[which])),
  secrets: query(
    "SELECT label, CASE WHEN retiredAt IS NULL THEN 'no' ELSE 'yes' END AS retired, CASE WHEN expiresAt IS NULL THEN 'never' ELSE 'set' END AS expires, CASE WHEN ciphertext IS NULL THEN 'erased' ELSE 'kept' END AS ciphertext FROM EndpointSecret WHERE endpointId = ? ORDER BY label",
    seeded.endpoints[which],
  ),
});
const ENABLED = { status: "enabled", deleted: "kept" };
/** A Stripe endpoint's API access: whether it holds a key, and the backfills asked for on the Endpoints page. */
const apiAccessState = (which: keyof typeof seeded.stripeEndpoints) => () => ({
  endpoint: one(query("SELECT CASE WHEN apiKeyCiphertext IS NULL THEN 'none' ELSE 'set' END AS apiKey FROM Endpoint WHERE id = ?", seeded.stripeEndpoints[which])),
  backfills: query<{ n: number | string }>("SELECT COUNT(*) AS n FROM GapCheck WHERE endpoint = ? AND trigger = 'dashboard'", seeded.stripeEndpoints[which]).map((row) => Number(row.n))[0],
});
const secret = (label: string, expires: "never" | "set" = "never", retired: "no" | "yes" = "no", ciphertext: "kept" | "erased" = "kept") => ({ label, retired, expires, ciphertext });
/** A user: name, default-organization role mirror, deactivation, live sessions and unrevoked keys, and memberships by organization. */
const userState = (user: Person) => ({
  user: one(
    query(
      "SELECT u.name, u.role, CASE WHEN u.banned THEN 'yes' ELSE 'no' END AS banned, (SELECT COUNT(*) FROM Session s WHERE s.userId = u.id) AS sessions, (SELECT COUNT(*) FROM ApiKey k WHERE k.userId = u.id AND k.revokedAt IS NULL) AS keys FROM User u WHERE u.email = ?",
      user.email,
    ),
  ),
  memberships: query<{ organizationId: string; role: string }>("SELECT m.organizationId, m.role FROM Membership m JOIN User u ON u.id = m.userId WHERE u.email = ? ORDER BY m.organizationId", user.email),
});
const keyState = (id: string) => one(query("SELECT name, CASE WHEN revokedAt IS NULL THEN 'no' ELSE 'yes' END AS revoked FROM ApiKey WHERE id = ?", id));
/** North's objects the Users page's actions name: its member, and its API key. */
const northPeopleState = () => ({ member: userState(northMember), key: keyState(seeded.northKeyId) });
const northPeople = () => ({
  member: { user: { name: "North Member", role: "merchant", banned: "no", sessions: 1, keys: 0 }, memberships: [{ organizationId: seeded.northId, role: "support" }] },
  key: { name: `north key ${run}`, revoked: "no" },
});
const defaultMember = (user: Person, changes: { user?: object; role?: string } = {}) => ({
  user: { name: "Default Member", role: changes.role ?? "merchant", banned: "no", sessions: 0, keys: 0, ...changes.user },
  memberships: [{ organizationId: "org_default", role: changes.role ?? "merchant" }],
});
const STRONG = "tangerine-pillow-galaxy-93";
const NEW_USER = `pa-new-${run}@actions.test`;
const NEW_CHANNEL_URL = `https://1.1.1.1/pa-hook-${run}`;

/** The organization an id is, by name (ids are generated, so rows of several are ordered by these). */
const organizationName = (id: string) => (id === seeded.northId ? "north" : id === seeded.westId ? "west" : id);

/**
 * One case per action of the build, named `<file>#<export>` as the manifest names it. A function: the
 * expectations name what beforeAll seeded (the names alone are read before).
 */
function cases(): Record<string, ActionCase> {
  return {
    "app/(dashboard)/dead-letters/actions.ts#retryDeadLettersAction": {
      state: deadLetterState("retry"),
      initial: OPEN_LETTER,
      fields: { id: seeded.deadLetters.retry.id, confirm: "review-first" },
      // Unknown in the poster's organization: named by its id alone, as an id that does not exist.
      otherAdmins: { west: info(`${seeded.deadLetters.retry.id} (no order): not found.`), default: info(`${seeded.deadLetters.retry.id} (no order): not found.`) },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { id: seeded.deadLetters.retry.id } }],
        answers: [info(`${seeded.deadLetters.retry.eventId} (order PA-MISSING-${run}): failed again (attempt 2). unknown order PA-MISSING-${run}`)],
        after: { ...OPEN_LETTER, attempts: 2 },
      },
    },
    "app/(dashboard)/dead-letters/actions.ts#assignDeadLetterAction": {
      state: deadLetterState("assign"),
      initial: OPEN_LETTER,
      fields: { id: seeded.deadLetters.assign.id, to: "" },
      otherAdmins: { west: DEAD_LETTER_NOT_OPEN, default: DEAD_LETTER_NOT_OPEN },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { id: seeded.deadLetters.assign.id, to: "" } }],
        answers: [ok("Assigned to you.")],
        after: { ...OPEN_LETTER, owner: northAdmin.email },
      },
    },
    "app/(dashboard)/dead-letters/actions.ts#resolveDeadLetterAction": {
      state: deadLetterState("resolve"),
      initial: OPEN_LETTER,
      fields: { id: seeded.deadLetters.resolve.id, note: "closed from another organization" },
      otherAdmins: { west: DEAD_LETTER_NOT_OPEN, default: DEAD_LETTER_NOT_OPEN },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { id: seeded.deadLetters.resolve.id, note: "the order was never placed here" } }],
        answers: [ok("Resolved with your note.")],
        after: { ...OPEN_LETTER, status: "resolved", resolution: "the order was never placed here", resolvedBy: northAdmin.email },
      },
    },
    "app/(dashboard)/replays/actions.ts#countDeadLettersAction": {
      // It only reads: what it must not do is show North's dead letter to another organization.
      state: deadLetterState("count"),
      initial: OPEN_LETTER,
      fields: { eventIds: seeded.deadLetters.count.eventId },
      otherAdmins: {
        west: { status: 200, body: { ok: true, tone: "info", messages: ["No open dead letter matches the filter."], count: 0, deadLetters: [] } },
        default: { status: 200, body: { ok: true, tone: "info", messages: ["No open dead letter matches the filter."], count: 0, deadLetters: [] } },
      },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { eventIds: seeded.deadLetters.count.eventId } }],
        answers: [{ status: 200, body: { ok: true, tone: "info", messages: ["1 open dead letter matches the filter: nothing is retried until you press Retry."], count: 1, deadLetters: [seeded.deadLetters.count.id] } }],
        after: OPEN_LETTER,
      },
    },
    "app/(dashboard)/replays/actions.ts#retryByFilterAction": {
      state: deadLetterState("filter"),
      initial: OPEN_LETTER,
      fields: { eventIds: seeded.deadLetters.filter.eventId, expected: "1" },
      otherAdmins: { west: bad("The filter now names 0 open dead letters, not 1: nothing was retried. Count again."), default: bad("The filter now names 0 open dead letters, not 1: nothing was retried. Count again.") },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { eventIds: seeded.deadLetters.filter.eventId, expected: "1" } }],
        answers: [info("Retried 1 dead letter:", `${seeded.deadLetters.filter.eventId} (order PA-MISSING-${run}): failed again (attempt 2). unknown order PA-MISSING-${run}`)],
        after: { ...OPEN_LETTER, attempts: 2 },
      },
    },
    "app/(dashboard)/replays/actions.ts#previewReplayAction": {
      // A preview is stored in the organization it is made in: North's replays by anyone but the operator, who seeded one.
      state: () => query("SELECT createdBy, status, eventCount FROM Replay WHERE organizationId = ? AND createdBy <> 'operator (API_TOKEN)' ORDER BY createdAt", seeded.northId),
      initial: [],
      fields: { eventIds: seeded.paidEventId },
      otherAdmins: { west: info("The filter names no event that can be replayed."), default: info("The filter names no event that can be replayed.") },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { eventIds: seeded.paidEventId } }],
        answers: [{ status: 200, body: { redirect: expect.stringMatching(new RegExp(`^/o/${NORTH.slug}/replays/[^/?]+$`)) } }],
        after: [{ createdBy: northAdmin.email, status: "previewed", eventCount: 1 }],
      },
    },
    "app/(dashboard)/replays/actions.ts#applyReplayAction": {
      params: { id: seeded.replayId },
      state: () => one(query("SELECT status, appliedBy FROM Replay WHERE id = ?", seeded.replayId)),
      initial: { status: "previewed", appliedBy: null },
      fields: { id: seeded.replayId },
      otherAdmins: { west: bad("No such replay."), default: bad("No such replay.") },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { id: seeded.replayId } }],
        answers: [ok("Applied. Events that moved money or state: 0 of 1. The dead letters of the applied events are resolved in your name.")],
        after: { status: "applied", appliedBy: northAdmin.email },
      },
    },
    "app/(dashboard)/review/actions.ts#resolveReviewItemAction": {
      state: () => ({
        extraCharge: one(query("SELECT status, note, resolvedBy FROM ExtraCharge WHERE id = ?", seeded.extraChargeId)),
        outbox: one(query("SELECT status, note FROM OutboxMessage WHERE id = ?", seeded.outboxId)),
      }),
      initial: { extraCharge: { status: "open", note: null, resolvedBy: null }, outbox: { status: "uncertain", note: null } },
      fields: { kind: "extra_charge", id: seeded.extraChargeId, note: "refunded from another organization" },
      moreFields: [{ kind: "outbox", id: seeded.outboxId, note: "delivered, says another organization" }],
      otherAdmins: { west: DEAD_LETTER_NOT_OPEN, default: DEAD_LETTER_NOT_OPEN },
      acts: {
        posts: [
          { as: "northAdmin", base: AT_NORTH, fields: { kind: "extra_charge", id: seeded.extraChargeId, note: "refunded the second charge" } },
          { as: "northAdmin", base: AT_NORTH, fields: { kind: "outbox", id: seeded.outboxId, note: "the merchant confirmed it" } },
        ],
        answers: [
          { status: 200, body: { redirect: `/o/${NORTH.slug}/review?resolved=extra_charge` } },
          { status: 200, body: { redirect: `/o/${NORTH.slug}/review?resolved=outbox` } },
        ],
        after: { extraCharge: { status: "resolved", note: "refunded the second charge", resolvedBy: northAdmin.email }, outbox: { status: "resolved", note: "the merchant confirmed it" } },
      },
    },
    "app/(dashboard)/endpoints/actions.ts#createEndpointAction": {
      // A new endpoint on North's provider account would take North's events.
      state: () => query("SELECT organizationId, status FROM Endpoint WHERE account = ? AND deletedAt IS NULL ORDER BY createdAt", seeded.labAccount),
      initial: [{ organizationId: seeded.northId, status: "enabled" }],
      fields: { provider: "lab", account: seeded.labAccount, livemode: "live", processingMode: "inline", secret: "", options: "" },
      otherAdmins: {
        west: bad("That provider account (and live or test mode) belongs to another organization: an account's events belong to one organization."),
        default: bad("That provider account (and live or test mode) belongs to another organization: an account's events belong to one organization."),
      },
      acts: {
        // Another endpoint of the same organization on the same account is allowed (moving an endpoint).
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { provider: "lab", account: seeded.labAccount, livemode: "live", processingMode: "inline", secret: "", options: "" } }],
        answers: [{ status: 200, body: { ok: true, tone: "ok", messages: [expect.stringMatching(/^Endpoint ep_[a-z0-9]{20} created\.$/)], endpointId: expect.stringMatching(/^ep_[a-z0-9]{20}$/), secret: "(secret)" } }],
        after: [
          { organizationId: seeded.northId, status: "enabled" },
          { organizationId: seeded.northId, status: "enabled" },
        ],
      },
    },
    "app/(dashboard)/endpoints/actions.ts#rotateSecretAction": {
      state: endpointState("rotate"),
      initial: { endpoint: ENABLED, secrets: [secret("secret-1")] },
      fields: { id: seeded.endpoints.rotate, secret: "", overlapSeconds: "0" },
      otherAdmins: { west: NOT_FOUND, default: NOT_FOUND },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { id: seeded.endpoints.rotate, secret: "", overlapSeconds: "3600" } }],
        answers: [{ status: 200, body: { ok: true, tone: "ok", messages: [expect.stringMatching(/^New secret secret-2; the previous ones verify until .+\.$/)], secret: "(secret)" } }],
        after: { endpoint: ENABLED, secrets: [secret("secret-1", "set"), secret("secret-2")] },
      },
    },
    "app/(dashboard)/endpoints/actions.ts#setEndpointStatusAction": {
      state: endpointState("status"),
      initial: { endpoint: ENABLED, secrets: [secret("secret-1")] },
      fields: { id: seeded.endpoints.status, status: "disabled" },
      otherAdmins: { west: NOT_FOUND, default: NOT_FOUND },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { id: seeded.endpoints.status, status: "disabled" } }],
        answers: [ok("Disabled: deliveries are answered 503 with Retry-After until it is enabled.")],
        after: { endpoint: { ...ENABLED, status: "disabled" }, secrets: [secret("secret-1")] },
      },
    },
    "app/(dashboard)/endpoints/actions.ts#deleteEndpointAction": {
      state: endpointState("delete"),
      initial: { endpoint: ENABLED, secrets: [secret("secret-1")] },
      fields: { id: seeded.endpoints.delete, confirm: "yes" },
      otherAdmins: { west: NOT_FOUND, default: NOT_FOUND },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { id: seeded.endpoints.delete, confirm: "yes" } }],
        answers: [ok(`Endpoint ${seeded.endpoints.delete} deleted: its URL answers 404; its history is kept.`)],
        after: { endpoint: { ...ENABLED, deleted: "deleted" }, secrets: [secret("secret-1", "never", "yes", "erased")] },
      },
    },
    "app/(dashboard)/endpoints/actions.ts#retireSecretAction": {
      state: endpointState("retire"),
      initial: { endpoint: ENABLED, secrets: [secret("secret-1", "set"), secret("secret-2")] },
      fields: { id: seeded.endpoints.retire, label: "secret-1" },
      otherAdmins: { west: NOT_FOUND, default: NOT_FOUND },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { id: seeded.endpoints.retire, label: "secret-1" } }],
        answers: [ok("secret-1 retired: it no longer verifies deliveries.")],
        after: { endpoint: ENABLED, secrets: [secret("secret-1", "set", "yes"), secret("secret-2")] },
      },
    },
    "app/(dashboard)/endpoints/actions.ts#setApiKeyAction": {
      state: apiAccessState("setKey"),
      initial: { endpoint: { apiKey: "none" }, backfills: 0 },
      fields: { id: seeded.stripeEndpoints.setKey, apiKey: NORTH_API_KEY },
      otherAdmins: { west: NOT_FOUND, default: NOT_FOUND },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { id: seeded.stripeEndpoints.setKey, apiKey: NORTH_API_KEY } }],
        answers: [ok("API key saved, encrypted: it is not shown again.")],
        after: { endpoint: { apiKey: "set" }, backfills: 0 },
      },
    },
    "app/(dashboard)/endpoints/actions.ts#removeApiKeyAction": {
      state: apiAccessState("removeKey"),
      initial: { endpoint: { apiKey: "set" }, backfills: 0 },
      fields: { id: seeded.stripeEndpoints.removeKey },
      otherAdmins: { west: NOT_FOUND, default: NOT_FOUND },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { id: seeded.stripeEndpoints.removeKey } }],
        answers: [ok("API key removed: nothing calls Stripe for this endpoint any more.")],
        after: { endpoint: { apiKey: "none" }, backfills: 0 },
      },
    },
    "app/(dashboard)/endpoints/actions.ts#requestBackfillAction": {
      state: apiAccessState("backfill"),
      initial: { endpoint: { apiKey: "set" }, backfills: 0 },
      fields: { id: seeded.stripeEndpoints.backfill },
      otherAdmins: { west: NOT_FOUND, default: NOT_FOUND },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { id: seeded.stripeEndpoints.backfill } }],
        answers: [ok("Backfill queued: a worker lists Stripe's events of the last 72 h and stores the missing ones.")],
        after: { endpoint: { apiKey: "set" }, backfills: 1 },
      },
    },
    "app/(dashboard)/alerts/actions.ts#addChannelAction": {
      // It names no object: it adds to the organization it is posted in. West's own post adds West's channel, never North's.
      state: () => query("SELECT organizationId, kind, CASE WHEN disabledAt IS NULL THEN 'no' ELSE 'yes' END AS disabled FROM AlertChannel WHERE url = ? AND organizationId = ?", NEW_CHANNEL_URL, seeded.northId),
      initial: [],
      fields: { kind: "webhook", url: NEW_CHANNEL_URL },
      otherAdmins: { west: { status: 200, body: { ok: true, tone: "ok", messages: ["Channel added."], secret: "(secret)" } } },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { kind: "webhook", url: NEW_CHANNEL_URL } }],
        state: () => query<{ organizationId: string; kind: string }>("SELECT organizationId, kind FROM AlertChannel WHERE url = ?", NEW_CHANNEL_URL).map((row) => ({ ...row, organizationId: organizationName(row.organizationId) })).sort((a, b) => a.organizationId.localeCompare(b.organizationId)),
        before: [{ organizationId: "west", kind: "webhook" }],
        answers: [{ status: 200, body: { ok: true, tone: "ok", messages: ["Channel added."], secret: "(secret)" } }],
        after: [
          { organizationId: "north", kind: "webhook" },
          { organizationId: "west", kind: "webhook" },
        ],
        // Nothing is ever sent to the address (a public one: the page refuses others).
        cleanUp: () => disableAlertChannels(NEW_CHANNEL_URL),
      },
    },
    "app/(dashboard)/alerts/actions.ts#removeChannelAction": {
      state: () => one(query("SELECT kind, \"to\", CASE WHEN disabledAt IS NULL THEN 'no' ELSE 'yes' END AS disabled FROM AlertChannel WHERE id = ?", seeded.channelId)),
      initial: { kind: "email", to: `north-alerts-${run}@actions.test`, disabled: "no" },
      fields: { id: seeded.channelId },
      otherAdmins: { west: NOT_FOUND, default: NOT_FOUND },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { id: seeded.channelId } }],
        answers: [ok("Channel removed.")],
        after: { kind: "email", to: `north-alerts-${run}@actions.test`, disabled: "yes" },
      },
    },
    "app/(dashboard)/alerts/actions.ts#saveRuleAction": {
      // It names no object: it saves the rule of the organization it is posted in (West's own post saves West's).
      state: () => query("SELECT rule, CASE WHEN enabled THEN 'on' ELSE 'off' END AS enabled, threshold FROM AlertRule WHERE organizationId = ?", seeded.northId),
      initial: [],
      fields: { rule: "pending_event_age", threshold: "77" },
      otherAdmins: { west: ok("Rule saved.") },
      acts: {
        posts: [{ as: "northAdmin", base: AT_NORTH, fields: { rule: "pending_event_age", enabled: "on", threshold: "88" } }],
        state: () =>
          query<{ organizationId: string }>("SELECT organizationId, rule, CASE WHEN enabled THEN 'on' ELSE 'off' END AS enabled, threshold FROM AlertRule WHERE organizationId IN (?, ?) ORDER BY threshold", seeded.northId, seeded.westId).map((row) => ({
            ...row,
            organizationId: organizationName(row.organizationId),
          })),
        // West's own post saved West's rule (no `enabled` field: the box unticked).
        before: [{ organizationId: "west", rule: "pending_event_age", enabled: "off", threshold: 77 }],
        answers: [ok("Rule saved.")],
        after: [
          { organizationId: "west", rule: "pending_event_age", enabled: "off", threshold: 77 },
          { organizationId: "north", rule: "pending_event_age", enabled: "on", threshold: 88 },
        ],
      },
    },
    "app/(dashboard)/admin/users/actions.ts#createUserAction": {
      // North's member's e-mail: taken, and she stays as she is.
      state: northPeopleState,
      initial: northPeople(),
      fields: { email: northMember.email, name: "Taken Over", role: "admin", password: STRONG },
      // The Users page manages the default organization's people: posted at another organization's address, it refuses.
      otherAdmins: { west: FORBIDDEN, default: bad("That email already has a user.") },
      acts: {
        posts: [{ as: "defaultAdmin", base: "", fields: { email: NEW_USER, name: "New Person", role: "support", password: STRONG } }],
        state: () => query("SELECT u.name, u.role, m.organizationId, m.role AS membership FROM User u JOIN Membership m ON m.userId = u.id WHERE u.email = ?", NEW_USER),
        before: [],
        answers: [ok(`Created ${NEW_USER}.`)],
        after: [{ name: "New Person", role: "support", organizationId: "org_default", membership: "support" }],
      },
    },
    "app/(dashboard)/admin/users/actions.ts#setRoleAction": {
      state: northPeopleState,
      initial: northPeople(),
      fields: { userId: northMember.id, role: "admin" },
      otherAdmins: { west: FORBIDDEN, default: NOT_FOUND },
      acts: {
        posts: [{ as: "defaultAdmin", base: "", fields: { userId: defaultMembers.role.id, role: "support" } }],
        state: () => userState(defaultMembers.role),
        before: defaultMember(defaultMembers.role),
        answers: [ok("Role saved; the user's sessions ended.")],
        after: defaultMember(defaultMembers.role, { role: "support" }),
      },
    },
    "app/(dashboard)/admin/users/actions.ts#setActiveAction": {
      state: northPeopleState,
      initial: northPeople(),
      fields: { userId: northMember.id, active: "false" },
      otherAdmins: { west: FORBIDDEN, default: NOT_FOUND },
      acts: {
        posts: [{ as: "defaultAdmin", base: "", fields: { userId: defaultMembers.active.id, active: "false" } }],
        state: () => userState(defaultMembers.active),
        before: defaultMember(defaultMembers.active),
        answers: [ok("User deactivated; their sessions ended and their API keys stop working.")],
        after: defaultMember(defaultMembers.active, { user: { banned: "yes" } }),
      },
    },
    "app/(dashboard)/admin/users/actions.ts#revokeSessionsAction": {
      state: northPeopleState,
      initial: northPeople(),
      fields: { userId: northMember.id },
      otherAdmins: { west: FORBIDDEN, default: NOT_FOUND },
      acts: {
        posts: [{ as: "defaultAdmin", base: "", fields: { userId: defaultMembers.sessions.id } }],
        state: () => userState(defaultMembers.sessions),
        before: defaultMember(defaultMembers.sessions, { user: { sessions: 1 } }),
        answers: [ok("Sessions ended.")],
        after: defaultMember(defaultMembers.sessions),
      },
    },
    "app/(dashboard)/admin/users/actions.ts#createApiKeyAction": {
      state: northPeopleState,
      initial: northPeople(),
      fields: { userId: northMember.id, name: "borrowed key", days: "30" },
      otherAdmins: { west: FORBIDDEN, default: bad("No active user with that id.") },
      acts: {
        posts: [{ as: "defaultAdmin", base: "", fields: { userId: defaultMembers.key.id, name: "own key", days: "30" } }],
        state: () => userState(defaultMembers.key),
        before: defaultMember(defaultMembers.key),
        answers: [{ status: 200, body: { ok: true, tone: "ok", messages: ["Copy this key now; it is not shown again:"], key: "(key)" } }],
        after: defaultMember(defaultMembers.key, { user: { keys: 1 } }),
      },
    },
    "app/(dashboard)/admin/users/actions.ts#revokeApiKeyAction": {
      state: northPeopleState,
      initial: northPeople(),
      fields: { keyId: seeded.northKeyId },
      // Keys are revoked by id within the organization the action acts in, the default one's or another's.
      otherAdmins: { west: NOT_FOUND, default: NOT_FOUND },
      acts: {
        posts: [{ as: "defaultAdmin", base: "", fields: { keyId: seeded.defaultKeyId } }],
        state: () => keyState(seeded.defaultKeyId),
        before: { name: `default key ${run}`, revoked: "no" },
        answers: [ok("Key revoked.")],
        after: { name: `default key ${run}`, revoked: "yes" },
      },
    },
  };
}

/** The build's server actions as `<file>#<export>`, with each one's id and the page it is posted to. */
function builtActions(): Map<string, { id: string; page: string }> {
  const manifest = JSON.parse(readFileSync(path.join(process.cwd(), ".next", "server", "server-reference-manifest.json"), "utf8")) as {
    node: Record<string, { workers: Record<string, unknown>; filename: string; exportedName: string }>;
  };
  const actions = new Map<string, { id: string; page: string }>();
  for (const [id, entry] of Object.entries(manifest.node)) {
    // The page's address: its app folder path without route groups, e.g. app/(dashboard)/replays/[id]/page -> /replays/[id].
    const worker = Object.keys(entry.workers).sort()[0];
    const page = worker.replace(/^app/, "").replace(/\/\([^/]+\)/g, "").replace(/\/page$/, "") || "/";
    actions.set(`${entry.filename}#${entry.exportedName}`, { id, page });
  }
  return actions;
}

test.beforeAll(async ({ request }) => {
  for (const organization of [NORTH, WEST]) {
    const made = await request.post("/api/orgs", { data: organization, headers: operator });
    expect(made.status(), await made.text()).toBe(201);
  }
  const organizations = query<{ id: string; slug: string }>("SELECT id, slug FROM Organization WHERE slug IN (?, ?)", NORTH.slug, WEST.slug);
  seeded.northId = organizations.find((row) => row.slug === NORTH.slug)!.id;
  seeded.westId = organizations.find((row) => row.slug === WEST.slug)!.id;

  // People: one password hash for all (better-auth verifies it against each user's own row).
  const hash = await hashPassword(PASSWORD);
  const members: [Person, string, string, string][] = [
    [northAdmin, "North Admin", NORTH.slug, "admin"],
    [westAdmin, "West Admin", WEST.slug, "admin"],
    [northMember, "North Member", NORTH.slug, "support"],
    ...Object.values(defaultMembers).map((member): [Person, string, string, string] => [member, "Default Member", "default", "merchant"]),
  ];
  for (const [member, name, slug, role] of members) {
    insertUser(member.id, member.email, name, hash);
    addMembership(member.email, slug, role);
  }

  // North's endpoints: one receives the deliveries below; each endpoint action has one of its own.
  const endpoint = async (account: string) => {
    const made = await request.post("/api/endpoints", { headers: inNorth, data: { provider: "lab", account, livemode: true, processingMode: "inline" } });
    expect(made.status(), await made.text()).toBe(201);
    return (await made.json()) as { id: string; secret: string };
  };
  const receiving = await endpoint(seeded.labAccount);
  for (const which of STRIPE_ENDPOINTS) {
    const made = await request.post("/api/endpoints", { headers: inNorth, data: { provider: "stripe", account: `acct_pa${which}${run.replace(/[^A-Za-z0-9]/g, "")}`, livemode: true, processingMode: "inline", secret: `whsec_pa_${which}_${run}` } });
    expect(made.status(), await made.text()).toBe(201);
    seeded.stripeEndpoints[which] = ((await made.json()) as { id: string }).id;
    if (which === "setKey") continue;
    const keyed = await request.put(`/api/endpoints/${seeded.stripeEndpoints[which]}/api-key`, { headers: inNorth, data: { apiKey: NORTH_API_KEY } });
    expect(keyed.status(), await keyed.text()).toBe(200);
  }
  for (const which of ENDPOINTS) seeded.endpoints[which] = (await endpoint(`lab_pa_${which}_${run}`)).id;
  // The endpoint whose secret-1 is retired has a secret-2 beside it (the last active one cannot be).
  const rotated = await request.post(`/api/endpoints/${seeded.endpoints.retire}/secrets`, { headers: inNorth, data: { overlapSeconds: 86_400 } });
  expect(rotated.status(), await rotated.text()).toBe(201);

  const deliver = async (eventId: string, orderId: string, amount: number) => {
    const body = JSON.stringify({ id: eventId, type: "payment.approved", created: 1760181330, data: { payment_id: `pay_${eventId}`, order_id: orderId, amount, currency: "ARS" } });
    const delivered = await request.post(`/api/webhooks/${receiving.id}`, { data: body, headers: { "content-type": "application/json", "Lab-Signature": signTimestamped(receiving.secret, Math.floor(Date.now() / 1000), body) } });
    return ((await delivered.json()) as { outcome: string }).outcome;
  };
  // Dead letters: payments for an order North does not have.
  for (const which of DEAD_LETTERS) {
    const eventId = `evt_pa_${which}_${run}`;
    expect(await deliver(eventId, `PA-MISSING-${run}`, 100)).toBe("dead_lettered");
    seeded.deadLetters[which] = { id: query<{ id: string }>("SELECT id FROM DeadLetter WHERE eventId = ?", eventId)[0].id, eventId };
  }
  // A paid order, a second payment for it (an extra charge), and a stored replay of the first payment.
  const order = await request.post("/api/orders", { data: { id: `PA-PAID-${run}`, amount: 5_000, currency: "ARS" }, headers: inNorth });
  expect(order.status(), await order.text()).toBe(201);
  expect(await deliver(seeded.paidEventId, `PA-PAID-${run}`, 5_000)).toBe("applied");
  expect(await deliver(`evt_pa_extra_${run}`, `PA-PAID-${run}`, 5_000)).toBe("applied");
  seeded.extraChargeId = query<{ id: string }>("SELECT id FROM ExtraCharge WHERE eventId = ?", `evt_pa_extra_${run}`)[0].id;
  insertUncertainOutboxRow(seeded.outboxId, `PA-PAID-${run}`, seeded.northId);
  const replay = await request.post("/api/replays", { headers: inNorth, data: { dryRun: true, filter: { eventIds: [seeded.paidEventId] } } });
  expect(replay.status(), await replay.text()).toBe(201);
  seeded.replayId = ((await replay.json()) as { id: string }).id;
  insertAlertChannel(seeded.channelId, NORTH.slug, `north-alerts-${run}@actions.test`);
  // API keys: North's (named across organizations) and the default organization's (revoked by its admin).
  for (const [headers, name, key] of [
    [inNorth, `north key ${run}`, "northKeyId"],
    [operator, `default key ${run}`, "defaultKeyId"],
  ] as const) {
    const made = await request.post("/api/api-keys", { headers, data: { name, role: "support" } });
    expect(made.status(), await made.text()).toBe(201);
    seeded[key] = ((await made.json()) as { id: string }).id;
  }

  // Signed in through the API, each from an address of its own (the sign-in limit counts per address).
  const signedIn = async (user: { email: string; password: string }, address: string) => {
    const context = await playwrightRequest.newContext({ baseURL: E2E.baseURL, extraHTTPHeaders: { "x-forwarded-for": address } });
    const answer = await context.post("/api/auth/sign-in/email", { data: { email: user.email, password: user.password }, headers: { origin: E2E.baseURL } });
    expect(answer.status(), `${user.email}: ${await answer.text()}`).toBe(200);
    return context;
  };
  contexts.northAdmin = await signedIn({ email: northAdmin.email, password: PASSWORD }, "203.0.113.171");
  contexts.westAdmin = await signedIn({ email: westAdmin.email, password: PASSWORD }, "203.0.113.172");
  contexts.northMember = await signedIn({ email: northMember.email, password: PASSWORD }, "203.0.113.173");
  contexts.defaultSessions = await signedIn({ email: defaultMembers.sessions.email, password: PASSWORD }, "203.0.113.174");
  contexts.defaultAdmin = await playwrightRequest.newContext({ baseURL: E2E.baseURL, storageState: storageStateOf("admin"), extraHTTPHeaders: { "x-forwarded-for": "203.0.113.175" } });
  contexts.anonymous = await playwrightRequest.newContext({ baseURL: E2E.baseURL, extraHTTPHeaders: { "x-forwarded-for": "203.0.113.176" } });
});

test.afterAll(async () => {
  for (const context of Object.values(contexts)) await context.dispose();
});

test("every server action of the build has a case here, and every case is an action of the build", () => {
  const built = [...builtActions().keys()].sort();
  const named = Object.keys(cases()).sort();
  expect({ withoutCase: built.filter((name) => !named.includes(name)), withoutAction: named.filter((name) => !built.includes(name)) }).toEqual({ withoutCase: [], withoutAction: [] });
});

for (const name of Object.keys(cases())) {
  test(`${name}: posted by another organization's admin or by nobody, North's objects stay as they were; their owner's post acts`, async () => {
    const action = cases()[name];
    const built = builtActions().get(name);
    expect(built, `${name} is not an action of the build`).toBeDefined();
    const params = action.params ?? {};
    const section = built!.page.replace(/\[(\w+)\]/g, (_, key: string) => params[key]);
    // The answer and North's objects after it, in one comparison: a failure shows both.
    const tried = (label: string, answer: Answer, expected: Answer) => {
      expect({ answer, north: action.state() }, `${name}, ${label}`).toEqual({ answer: expected, north: action.initial });
    };
    expect(action.state(), `${name}: North's objects as seeded`).toEqual(action.initial);
    for (const fields of [action.fields, ...(action.moreFields ?? [])]) {
      tried("West's admin at West's address", await postAction(contexts.westAdmin, `/o/${WEST.slug}`, section, built!.id, fields), action.otherAdmins.west);
      tried("West's admin at North's address", await postAction(contexts.westAdmin, AT_NORTH, section, built!.id, fields), FORBIDDEN);
      tried("nobody signed in, at North's address", await postAction(contexts.anonymous, AT_NORTH, section, built!.id, fields), SIGN_IN_FIRST);
      if (action.otherAdmins.default) tried("the default organization's admin at its address", await postAction(contexts.defaultAdmin, "", section, built!.id, fields), action.otherAdmins.default);
    }
    // The positive control: the owner's post acts.
    const ownState = action.acts.state ?? action.state;
    expect(ownState(), `${name}: the owner's objects before`).toEqual("before" in action.acts ? action.acts.before : action.initial);
    const answers: Answer[] = [];
    for (const post of action.acts.posts) answers.push(await postAction(contexts[post.as], post.base, section, built!.id, post.fields));
    action.acts.cleanUp?.();
    expect(answers, `${name}: the owner's answers`).toEqual(action.acts.answers);
    expect(ownState(), `${name}: the owner's objects after`).toEqual(action.acts.after);
  });
}

