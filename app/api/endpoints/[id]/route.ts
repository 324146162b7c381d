// GET /api/endpoints/[id]: one endpoint stored as data (never a secret value); PATCH {status}: enable or
// disable it; DELETE: its URL answers 404 from then on (its history is kept). An admin or API_TOKEN, in
// the organization it acts in: another organization's endpoint is 404.
import { endpointActor, endpointRefusalResponse, endpointRequest } from "@/lib/api/endpoint-answers";
import { jsonError, methodNotAllowed, optionsAnswer, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { deleteEndpoint, endpointPatchSchema, getEndpoint, setEndpointStatus } from "@/lib/endpoints/endpoint-store";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export async function GET(request: Request, context: Context): Promise<Response> {
  const call = await endpointRequest(request, context);
  if (!call.ok) return call.response;
  const { caller, params: { id } } = call;
  return withDatabaseErrors(async () => {
    const endpoint = await getEndpoint(await db(), id, { organizationId: caller.organizationId });
    return endpoint ? Response.json(endpoint) : jsonError(404, "not_found", `endpoint ${id.slice(0, 40)} not found`);
  });
}

export async function PATCH(request: Request, context: Context): Promise<Response> {
  const call = await endpointRequest(request, context, endpointPatchSchema);
  if (!call.ok) return call.response;
  const { caller, params: { id }, body } = call;
  return withDatabaseErrors(async () => {
    const result = await setEndpointStatus(await db(), id, body.status, endpointActor(caller), { organizationId: caller.organizationId });
    return result.kind === "updated" ? Response.json(result.endpoint) : endpointRefusalResponse(result);
  });
}

export async function DELETE(request: Request, context: Context): Promise<Response> {
  const call = await endpointRequest(request, context);
  if (!call.ok) return call.response;
  const { caller, params: { id } } = call;
  return withDatabaseErrors(async () => {
    const result = await deleteEndpoint(await db(), id, endpointActor(caller), { organizationId: caller.organizationId });
    return result.kind === "deleted" ? new Response(null, { status: 204 }) : endpointRefusalResponse(result);
  });
}

export const POST = methodNotAllowed(["GET", "PATCH", "DELETE"]);
export const OPTIONS = optionsAnswer(["GET", "PATCH", "DELETE"]);
export { POST as PUT };
