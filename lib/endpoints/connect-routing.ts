import type { ServedEndpoint } from "@/lib/endpoints/endpoints";

/**
 * The endpoint a verified event is received as, by the account it names (Stripe Connect: a connected
 * account's event carries the top-level `account`, a platform's own event none;
 * docs.stripe.com/connect/webhooks). Takes the endpoint the delivery came to and the event's `account`.
 *
 * On a Connect endpoint, an event of a connected account bound to an organization is received as that
 * organization's, scoped by the connected account: its event key, business keys and books are the
 * connected account's own (two connected accounts' events never collide), and its order is looked up in
 * that organization. Returns the endpoint unchanged otherwise: an event without `account` (or naming the
 * endpoint's own) is the platform's, its owning organization's under the endpoint's account; an event of
 * an account without a binding keeps naming another account than the endpoint's, which the delivery's
 * organisation check answers 200 `ignored` (`account_not_bound`, lib/ingest/answers.ts). No read: the
 * bindings come with the endpoint from the process's cache.
 */
export function routeConnectEvent(endpoint: ServedEndpoint, account: string | undefined): ServedEndpoint {
  if (!endpoint.connect || account === undefined || account === endpoint.account) return endpoint;
  const organizationId = endpoint.connect.bindings.get(account);
  return organizationId === undefined ? endpoint : { ...endpoint, organizationId, account };
}
