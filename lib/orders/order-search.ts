import type { Db } from "@/lib/db/client";
import { driverOf, type SqlValue } from "@/lib/db/driver";

/**
 * What a search text can name, besides a part of an order id: the order's checkout session, a payment
 * of it (the provider's payment id: Stripe `pi_…`, Yolfi `ypay_…`), a charge (Stripe `ch_…`), a provider
 * event about it, and the customer's e-mail where the provider sent one. Provider ids match exactly;
 * e-mails case-insensitively.
 */
export const SEARCH_KINDS = ["order_id", "checkout_session_id", "payment_id", "charge_id", "event_id", "customer_email"] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** Most orders one exact search names (an e-mail of a customer with thousands of orders lists the first ones). */
export const MAX_NAMED_ORDERS = 1_000;

/** Orders a search text names exactly, each with the kinds of id that named it (in {@link SEARCH_KINDS} order). */
export type NamedOrders = Map<string, SearchKind[]>;

/**
 * The orders `q` names exactly, by one index seek per kind: an order whose checkout session is `q`
 * (Order.checkoutSessionId), and the orders of the stored events whose checkout session, payment id,
 * charge id or provider event id is `q` (an order created without its session is found through the
 * session its events named), or whose customer's e-mail is `q` in any case when `emails` is true (the caller's role
 * may read personal data: lib/auth/roles.ts, `payloads.read`), and the orders of dead letters of event
 * `q` (an event dead-lettered in inline mode is not stored, its dead letter is). An e-mail is kept only
 * while its event's payload is (retention empties both), so a purged event is no longer found by it.
 * Only the organization's rows are read. Returns at most {@link MAX_NAMED_ORDERS} orders; an empty map for a blank `q`.
 */
export async function ordersNamedBy(db: Db, organizationId: string, q: string, options: { emails: boolean }): Promise<NamedOrders> {
  const text = q.trim();
  const named: NamedOrders = new Map();
  if (!text) return named;
  const email = options.emails && text.includes("@") ? text.toLowerCase() : undefined;
  const driver = driverOf(db);
  const statement = namedEventsStatement(organizationId, text, email);
  const [sessions, events, letters] = await Promise.all([
    db.order.findMany({ where: { organizationId, checkoutSessionId: text }, select: { id: true }, take: MAX_NAMED_ORDERS }),
    driver.all<{ orderId: string | null; paymentKey: string | null; chargeId: string | null; checkoutSessionId: string | null; eventId: string; customerEmail: string | null }>(statement.sql, statement.params),
    db.deadLetter.findMany({ where: { organizationId, eventId: text, orderId: { not: null } }, select: { orderId: true }, take: MAX_NAMED_ORDERS }),
  ]);
  const add = (orderId: string | null, kind: SearchKind) => {
    if (!orderId) return;
    const kinds = named.get(orderId);
    if (!kinds) {
      if (named.size < MAX_NAMED_ORDERS) named.set(orderId, [kind]);
    } else if (!kinds.includes(kind)) kinds.push(kind);
  };
  for (const order of sessions) add(order.id, "checkout_session_id");
  for (const event of events) {
    if (event.checkoutSessionId === text) add(event.orderId, "checkout_session_id");
    if (event.paymentKey === text) add(event.orderId, "payment_id");
    if (event.chargeId === text) add(event.orderId, "charge_id");
    if (event.eventId === text) add(event.orderId, "event_id");
    if (email && event.customerEmail === email) add(event.orderId, "customer_email");
  }
  for (const letter of letters) add(letter.orderId, "event_id");
  for (const kinds of named.values()) kinds.sort((a, b) => SEARCH_KINDS.indexOf(a) - SEARCH_KINDS.indexOf(b));
  return named;
}

/**
 * The statement that finds the stored events a search text names (exported so a test can EXPLAIN the
 * very statement the search runs): payment id, charge id, checkout session id or event id equal to
 * `text`, or the customer's e-mail equal to `email` (already lower-cased; left out when undefined), each
 * an index of WebhookEvent (`paymentKey`, `chargeId`, `checkoutSessionId`, `eventId`, `customerEmail`):
 * the planners OR the five index seeks
 * (SQLite's multi-index OR, PostgreSQL's BitmapOr), then keep the organization's rows: its condition is an
 * expression (`"organizationId" || ''`) so that no planner trades the five seeks for the wide
 * (organizationId, orderId) index. Newest first, at most {@link MAX_NAMED_ORDERS} rows.
 */
export function namedEventsStatement(organizationId: string, text: string, email: string | undefined): { sql: string; params: SqlValue[] } {
  const kinds = [`"paymentKey" = ?`, `"chargeId" = ?`, `"checkoutSessionId" = ?`, `"eventId" = ?`, ...(email ? [`"customerEmail" = ?`] : [])];
  return {
    sql: `SELECT "orderId", "paymentKey", "chargeId", "checkoutSessionId", "eventId", "customerEmail" FROM "WebhookEvent" WHERE (${kinds.join(" OR ")}) AND ("organizationId" || '') = ? AND "orderId" IS NOT NULL ORDER BY "receivedAt" DESC LIMIT ?`,
    params: [text, text, text, text, ...(email ? [email] : []), organizationId, MAX_NAMED_ORDERS],
  };
}

/** The kinds a row was found by: `order_id` when `q` is a part of its id (any case), then the exact kinds. */
export function matchedKinds(orderId: string, q: string | undefined, named: NamedOrders): SearchKind[] {
  if (!q) return [];
  const byId = orderId.toLowerCase().includes(q.trim().toLowerCase()) ? (["order_id"] as SearchKind[]) : [];
  return [...byId, ...(named.get(orderId) ?? [])];
}

/**
 * `text` as a LIKE pattern matching it anywhere: `%`, `_` and the escape character itself escaped with
 * `\` (the statement says `ESCAPE '\'`), so "d_0" matches the text d_0, never "dX0".
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
