// Where the dashboard links a provider's event: its stored event's page when the id is known, else the
// lookup (/events?eventId=…), which opens the one stored event holding that id or lists them.

/** The page of stored event `id` (Acredita's WebhookEvent id). */
export function storedEventHref(id: string): string {
  return `/events/${encodeURIComponent(id)}`;
}

/** The lookup of a provider's event id, narrowed to its provider (and endpoint, when known). */
export function eventLookupHref(ref: { eventId: string; provider: string; endpoint?: string }): string {
  const query = new URLSearchParams({ eventId: ref.eventId, provider: ref.provider, ...(ref.endpoint ? { endpoint: ref.endpoint } : {}) });
  return `/events?${query.toString()}`;
}
