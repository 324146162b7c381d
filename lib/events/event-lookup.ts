import { z } from "zod";
import { idSchema } from "@/lib/money/amount-schemas";
import { parseStrictQuery } from "@/lib/lists/strict-query";

/** Query of `GET /api/events`: the provider's event id (required), and optionally its provider and endpoint. */
export const eventLookupSchema = z.object({
  eventId: z.string({ error: (issue) => (issue.input === undefined ? "required: the provider's event id (e.g. evt_…); GET /api/events/<id> takes Acredita's stored-event id" : undefined) }).pipe(idSchema),
  provider: z.string().min(1).max(50).optional(),
  endpoint: z.string().min(1).max(63).optional(),
});
export type EventLookup = z.infer<typeof eventLookupSchema>;

/**
 * Reads `GET /api/events`'s query strictly: an unknown parameter is refused by name (an ignored filter
 * would widen the answer), a missing eventId is refused. Returns the query or the 400's sentence.
 */
export function parseEventLookup(search: URLSearchParams): { ok: true; query: EventLookup } | { ok: false; error: string } {
  return parseStrictQuery(search, eventLookupSchema, "GET /api/events", Object.keys(eventLookupSchema.shape));
}
