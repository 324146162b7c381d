import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { uniqueViolationFields } from "@/lib/db/errors";
import { currencySchema, idSchema } from "@/lib/money/amount-schemas";
import { MAX_AMOUNT_MINOR } from "@/lib/money/amount-schemas";
import { isIsoCurrency } from "@/lib/money/minor-units";
import { ORDER_STATUSES, type OrderStatus } from "@/lib/core/order-transitions";
import { describeZodError } from "@/lib/providers/json";

/** Body of `POST /api/orders`: the store's order, amount in minor units of an ISO 4217 currency. */
export const newOrderSchema = z.object({
  id: idSchema.regex(/^[A-Za-z0-9_.:-]+$/, "letters, digits and _ . : - only"),
  amount: z.number().int().min(1).max(MAX_AMOUNT_MINOR),
  currency: currencySchema.refine(isIsoCurrency, "must be an ISO 4217 currency code (e.g. ARS, USD)"),
  checkoutSessionId: idSchema.optional(),
  livemode: z.boolean().optional(),
});

export type NewOrder = z.infer<typeof newOrderSchema>;

/** Query of `GET /api/orders`: `limit` 1..500 (default 100), `offset` 0..10^9 (default 0), `status` one of {@link ORDER_STATUSES}; anything else is 400. */
export const listQuerySchema = z.object({
  limit: z.coerce.number().min(1).max(500).refine(Number.isInteger, "must be a whole number").default(100),
  offset: z.coerce.number().min(0).max(1_000_000_000).refine(Number.isInteger, "must be a whole number").default(0),
  status: z.enum(ORDER_STATUSES as [OrderStatus, ...OrderStatus[]], `must be one of ${ORDER_STATUSES.join(", ")}`).optional(),
});

export type ListQuery = z.infer<typeof listQuerySchema>;

/**
 * Reads `GET /api/orders`'s query string strictly: a parameter it does not know (`page`, a misspelt
 * `stauts`) is refused by name rather than ignored, since an ignored filter answers with every order.
 * Returns the query, or the 400's sentence naming each problem.
 */
export function parseListQuery(search: URLSearchParams): { ok: true; query: ListQuery } | { ok: false; error: string } {
  const known = Object.keys(listQuerySchema.shape);
  const unknown = [...new Set(search.keys())].filter((key) => !known.includes(key));
  if (unknown.length > 0) return { ok: false, error: unknown.map((key) => `${key.slice(0, 60)}: not a parameter of GET /api/orders (it takes ${known.join(", ")})`).join("; ") };
  const parsed = listQuerySchema.safeParse(Object.fromEntries(search));
  return parsed.success ? { ok: true, query: parsed.data } : { ok: false, error: describeZodError(parsed.error) };
}

/** Result of {@link createOrder}: created (201), already there with the same fields (200) or conflicting (409). */
export type CreateOrderResult = { kind: "created" | "exists"; order: OrderView } | { kind: "conflict"; reason: string };

/** An order as the JSON API returns it; `credited` is the sum of its ledger entries (minor units). */
export interface OrderView {
  id: string;
  status: string;
  amount: number;
  currency: string;
  credited: number;
  refunded: number;
  /** Withdrawn by a dispute and not reinstated (minor units). */
  disputed: number;
  livemode: boolean;
  checkoutSessionId: string | null;
  createdAt: string;
  updatedAt: string;
  ledger: { businessKey: string; kind: string; amount: number; currency: string; provider: string; eventId: string; createdAt: string }[];
  events: { provider: string; eventId: string; type: string; status: string; receivedAt: string }[];
}

/**
 * Creates an order idempotently: inserting first and comparing on a UNIQUE violation (never
 * check-then-insert). Same id and fields again → `exists`; same id with other fields → `conflict`.
 */
export async function createOrder(db: Db, input: NewOrder): Promise<CreateOrderResult> {
  try {
    await db.order.create({
      data: { id: input.id, amount: input.amount, currency: input.currency, checkoutSessionId: input.checkoutSessionId ?? null, livemode: input.livemode ?? true },
    });
    return { kind: "created", order: (await getOrder(db, input.id))! };
  } catch (error) {
    const fields = uniqueViolationFields(error);
    if (!fields) throw error;
    const existing = await db.order.findUnique({ where: { id: input.id } });
    if (!existing) return { kind: "conflict", reason: `checkout session ${input.checkoutSessionId} belongs to another order` };
    const same =
      existing.amount === input.amount &&
      existing.currency === input.currency &&
      existing.livemode === (input.livemode ?? true) &&
      (input.checkoutSessionId === undefined || existing.checkoutSessionId === input.checkoutSessionId);
    if (!same) return { kind: "conflict", reason: `order ${input.id} already exists with different fields` };
    return { kind: "exists", order: (await getOrder(db, input.id))! };
  }
}

/** Returns one order with its ledger and stored events, or null. */
export async function getOrder(db: Db, id: string): Promise<OrderView | null> {
  const order = await db.order.findUnique({ where: { id }, include: { ledgerEntries: { orderBy: { createdAt: "asc" } } } });
  if (!order) return null;
  const events = await db.webhookEvent.findMany({
    where: { orderId: id },
    orderBy: { receivedAt: "asc" },
    select: { provider: true, eventId: true, type: true, status: true, receivedAt: true },
  });
  const credited = order.ledgerEntries.reduce((sum, entry) => sum + entry.amount, 0);
  return {
    id: order.id,
    status: order.status,
    amount: order.amount,
    currency: order.currency,
    credited,
    refunded: order.refundedAmount,
    disputed: order.disputedAmount,
    livemode: order.livemode,
    checkoutSessionId: order.checkoutSessionId,
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
    ledger: order.ledgerEntries.map((entry) => ({
      businessKey: entry.businessKey,
      kind: entry.kind,
      amount: entry.amount,
      currency: entry.currency,
      provider: entry.provider,
      eventId: entry.eventId,
      createdAt: entry.createdAt.toISOString(),
    })),
    events: events.map((event) => ({ ...event, receivedAt: event.receivedAt.toISOString() })),
  };
}

/** Lists orders (newest first) with the same shape as {@link getOrder}, `limit` at most 500, of one `status` when given. */
export async function listOrders(db: Db, { limit = 100, offset = 0, status }: { limit?: number; offset?: number; status?: OrderStatus } = {}): Promise<{ data: OrderView[]; count: number }> {
  const take = Math.min(Math.max(limit, 1), 500);
  const where = status ? { status } : {};
  const [rows, count] = await Promise.all([
    db.order.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "asc" }], take, skip: Math.max(offset, 0), select: { id: true } }),
    db.order.count({ where }),
  ]);
  const data = await Promise.all(rows.map((row) => getOrder(db, row.id)));
  return { data: data.filter((order): order is OrderView => order !== null), count };
}
