/**
 * What the decision log shows in its provider column: the provider, and the endpoint only when its name
 * says something the provider does not (`stripe` received on `stripe-live`), never `lab / lab`. Takes
 * the decision's provider and endpoint name; returns the endpoint to show, or undefined.
 */
export function endpointWorthShowing(provider: string, endpoint: string | null | undefined): string | undefined {
  if (!endpoint || endpoint.trim().toLowerCase() === provider.trim().toLowerCase()) return undefined;
  return endpoint;
}
