// The filter that chooses the events of a replay, and the open dead letters of a bulk retry: one schema
// for the API's JSON, the dashboard's form and the CLI's flags.
import { z } from "zod";
import { REASON_CODES } from "@/lib/reasons/reason-codes";

/**
 * Stored-event statuses a replay takes: finished (`processed`, `ignored`: replaying one changes nothing
 * when its effect is booked, the same business keys), parked for a retry (`failed`) and given up
 * (`dead`, which also names an event that only a dead letter holds: an inline-mode failure stores no
 * row). `received` and `processing` events are the inbox worker's, pending: never replayed.
 */
export const REPLAYABLE_STATUSES = ["processed", "ignored", "failed", "dead"] as const;
export type ReplayableStatus = (typeof REPLAYABLE_STATUSES)[number];

/** Most events one replay holds (its apply is one transaction: all of them or none). */
export const MAX_REPLAY_EVENTS = 200;

const reasonCodes = new Set<string>(REASON_CODES);
const instant = z.iso.datetime({ offset: true, message: "must be an ISO 8601 time with a zone (e.g. 2026-12-02T09:00:00Z)" });

/**
 * The filter: every field given must hold (AND); at least one is given (an empty filter would replay
 * the whole history). `eventIds` are the providers' event ids (as the decision log and the dead letters
 * show them); `endpoint` an endpoint's name; `type` the provider's event type; `status` one of
 * {@link REPLAYABLE_STATUSES}; `reason` a reason code of an open dead letter of the event, matched
 * whatever the dead letter's category (`unknown_order` finds the inline failure and the inbox event that
 * gave up after retrying it); `from`/`to` when the event arrived, [from, to) (ISO 8601 with a zone);
 * `orderId` the merchant's order id the event names or reached.
 */
export const replayFilterSchema = z
  .object({
    eventIds: z.array(z.string().trim().min(1).max(255)).min(1).max(MAX_REPLAY_EVENTS).optional(),
    endpoint: z.string().trim().min(1).max(100).optional(),
    type: z.string().trim().min(1).max(100).optional(),
    status: z.enum(REPLAYABLE_STATUSES, { message: `must be one of ${REPLAYABLE_STATUSES.join(", ")}` }).optional(),
    reason: z
      .string()
      .trim()
      .refine((code) => reasonCodes.has(code), "must be a reason code (e.g. unknown_order, no_transition, waiting_for_credit)")
      .optional(),
    from: instant.optional(),
    to: instant.optional(),
    orderId: z.string().trim().min(1).max(255).optional(),
  })
  .strict()
  .refine((filter) => Object.values(filter).some((value) => value !== undefined), { message: "give at least one of eventIds, endpoint, type, status, reason, from, to, orderId" })
  .refine((filter) => !filter.from || !filter.to || Date.parse(filter.from) < Date.parse(filter.to), { message: "from must be before to", path: ["to"] });

export type ReplayFilter = z.infer<typeof replayFilterSchema>;

/** The filter's fields in a fixed order, without the empty ones: what is stored with a replay and shown back. */
export function normalizedFilter(filter: ReplayFilter): ReplayFilter {
  const out: ReplayFilter = {};
  if (filter.eventIds) out.eventIds = [...new Set(filter.eventIds)];
  for (const key of ["endpoint", "type", "status", "reason", "orderId"] as const) if (filter[key] !== undefined) (out as Record<string, unknown>)[key] = filter[key];
  if (filter.from) out.from = new Date(filter.from).toISOString();
  if (filter.to) out.to = new Date(filter.to).toISOString();
  return out;
}

/**
 * The filter from a dashboard form or a URL's query: empty fields dropped, `eventIds` one per line or
 * separated by commas or spaces, `from`/`to` as a `datetime-local` value read in UTC (the dashboard's
 * times are UTC) or ISO 8601. Returns the parsed filter or zod's error.
 */
export function filterFromFields(fields: Record<string, string | undefined>): z.ZodSafeParseResult<ReplayFilter> {
  const text = (name: string) => {
    const value = fields[name]?.trim();
    return value ? value : undefined;
  };
  const time = (name: string) => {
    const value = text(name);
    return value && /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(value) ? `${value}${value.length === 16 ? ":00" : ""}Z` : value;
  };
  const ids = text("eventIds")
    ?.split(/[\s,]+/)
    .filter(Boolean);
  return replayFilterSchema.safeParse({
    eventIds: ids && ids.length > 0 ? ids : undefined,
    endpoint: text("endpoint"),
    type: text("type"),
    status: text("status"),
    reason: text("reason"),
    from: time("from"),
    to: time("to"),
    orderId: text("orderId"),
  });
}

/**
 * A filter as the fields of the dashboard's replay form (a link's query string, the form's initial
 * values): `eventIds` space-separated, `from`/`to` as `datetime-local` values in UTC ("2026-12-02T09:00").
 */
export function filterFormValues(filter: ReplayFilter): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    if (key === "eventIds") values.eventIds = (value as string[]).join(" ");
    else if (key === "from" || key === "to") values[key] = new Date(value as string).toISOString().slice(0, 16);
    else values[key] = String(value);
  }
  return values;
}
