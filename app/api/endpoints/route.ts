// GET /api/endpoints: the endpoints stored as data (never a secret value); POST /api/endpoints: create one
// (201; a secret Acredita generated is in this answer only). An admin's session or API key, or API_TOKEN;
// each in the organization it acts in (lib/api/authorize-api.ts).
import { authorizeApi } from "@/lib/api/authorize-api";
import { endpointActor, endpointRefusalResponse, readJsonBody } from "@/lib/api/endpoint-answers";
import { invalidBody, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { createEndpoint, listEndpoints, newEndpointSchema } from "@/lib/endpoints/endpoint-store";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "endpoints.manage", { scoped: true });
  const denied = refusal(caller);
  if (denied || typeof caller === "string") return denied!;
  return withDatabaseErrors(async () => Response.json(await listEndpoints(await db(), { organizationId: caller.organizationId })));
}

export async function POST(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "endpoints.manage", { scoped: true });
  const denied = refusal(caller);
  if (denied || typeof caller === "string") return denied!;
  const body = await readJsonBody(request);
  if (!body.ok) return body.response;
  const parsed = newEndpointSchema.safeParse(body.json);
  if (!parsed.success) return invalidBody(parsed.error);
  return withDatabaseErrors(async () => {
    const result = await createEndpoint(await db(), parsed.data, endpointActor(caller), { organizationId: caller.organizationId });
    if (result.kind !== "created") return endpointRefusalResponse(result);
    const location = result.endpoint.url.replace("/api/webhooks/", "/api/endpoints/");
    return Response.json({ ...result.endpoint, ...(result.secret ? { secret: result.secret } : {}) }, { status: 201, headers: { location, "cache-control": "no-store" } });
  });
}

export const PUT = methodNotAllowed(["GET", "POST"]);
export const OPTIONS = optionsAnswer(["GET", "POST"]);
export { PUT as PATCH, PUT as DELETE };
