// PUT /api/endpoints/[id]/api-key {apiKey}: a Stripe endpoint's API key (a restricted key that reads
// events, balance transactions and reports), stored encrypted for backfills, the gap check and settlement
// pulls, never shown again (200: the endpoint, with when its key was set). DELETE: removes it (200). An
// admin or API_TOKEN, in the organization it acts in: another organization's endpoint is 404.
import { authorizeApi } from "@/lib/api/authorize-api";
import { endpointActor, endpointRefusalResponse, readJsonBody } from "@/lib/api/endpoint-answers";
import { invalidBody, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { apiKeyBodySchema, removeEndpointApiKey, setEndpointApiKey } from "@/lib/endpoints/endpoint-store";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export async function PUT(request: Request, context: Context): Promise<Response> {
  const caller = await authorizeApi(request, "endpoints.manage", { scoped: true });
  const denied = refusal(caller);
  if (denied || typeof caller === "string") return denied!;
  const { id } = await context.params;
  const body = await readJsonBody(request);
  if (!body.ok) return body.response;
  const parsed = apiKeyBodySchema.safeParse(body.json);
  // zod's issues name the field and the rule, never the value: a key sent in the wrong shape is not echoed.
  if (!parsed.success) return invalidBody(parsed.error);
  return withDatabaseErrors(async () => {
    const result = await setEndpointApiKey(await db(), id, parsed.data.apiKey, endpointActor(caller), { organizationId: caller.organizationId });
    return result.kind === "updated" ? Response.json(result.endpoint, { headers: { "cache-control": "no-store" } }) : endpointRefusalResponse(result);
  });
}

export async function DELETE(request: Request, context: Context): Promise<Response> {
  const caller = await authorizeApi(request, "endpoints.manage", { scoped: true });
  const denied = refusal(caller);
  if (denied || typeof caller === "string") return denied!;
  const { id } = await context.params;
  return withDatabaseErrors(async () => {
    const result = await removeEndpointApiKey(await db(), id, endpointActor(caller), { organizationId: caller.organizationId });
    return result.kind === "updated" ? Response.json(result.endpoint) : endpointRefusalResponse(result);
  });
}

export const GET = methodNotAllowed(["PUT", "DELETE"]);
export const OPTIONS = optionsAnswer(["PUT", "DELETE"]);
export { GET as POST, GET as PATCH };
