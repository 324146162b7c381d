// PUT /api/endpoints/[id]/api-key {apiKey}: a Stripe endpoint's API key (a restricted key that reads
// events, balance transactions and reports), stored encrypted for backfills, the gap check and settlement
// pulls, never shown again (200: the endpoint, with when its key was set). DELETE: removes it (200). An
// admin or API_TOKEN, in the organization it acts in: another organization's endpoint is 404.
import { endpointActor, endpointRefusalResponse, endpointRequest } from "@/lib/api/endpoint-answers";
import { methodNotAllowed, optionsAnswer, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { apiKeyBodySchema, removeEndpointApiKey, setEndpointApiKey } from "@/lib/endpoints/endpoint-store";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export async function PUT(request: Request, context: Context): Promise<Response> {
  // zod's issues name the field and the rule, never the value: a key sent in the wrong shape is not echoed.
  const call = await endpointRequest(request, context, apiKeyBodySchema);
  if (!call.ok) return call.response;
  const { caller, params, body } = call;
  return withDatabaseErrors(async () => {
    const result = await setEndpointApiKey(await db(), params.id, body.apiKey, endpointActor(caller), { organizationId: caller.organizationId });
    return result.kind === "updated" ? Response.json(result.endpoint, { headers: { "cache-control": "no-store" } }) : endpointRefusalResponse(result);
  });
}

export async function DELETE(request: Request, context: Context): Promise<Response> {
  const call = await endpointRequest(request, context);
  if (!call.ok) return call.response;
  const { caller, params } = call;
  return withDatabaseErrors(async () => {
    const result = await removeEndpointApiKey(await db(), params.id, endpointActor(caller), { organizationId: caller.organizationId });
    return result.kind === "updated" ? Response.json(result.endpoint) : endpointRefusalResponse(result);
  });
}

export const GET = methodNotAllowed(["PUT", "DELETE"]);
export const OPTIONS = optionsAnswer(["PUT", "DELETE"]);
export { GET as POST, GET as PATCH };
