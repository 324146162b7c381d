// DELETE /api/endpoints/[id]/secrets/[label]: retire one signing secret at once (409 for the last active
// secret of an enabled endpoint). An admin or API_TOKEN.
import { endpointActor, endpointRefusalResponse, endpointRequest } from "@/lib/api/endpoint-answers";
import { methodNotAllowed, optionsAnswer, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { retireSecret } from "@/lib/endpoints/endpoint-store";

export const dynamic = "force-dynamic";

export async function DELETE(request: Request, context: { params: Promise<{ id: string; label: string }> }): Promise<Response> {
  const call = await endpointRequest(request, context);
  if (!call.ok) return call.response;
  const { caller, params: { id, label } } = call;
  return withDatabaseErrors(async () => {
    const result = await retireSecret(await db(), id, label, endpointActor(caller), { organizationId: caller.organizationId });
    return result.kind === "retired" ? Response.json(result.secret) : endpointRefusalResponse(result);
  });
}

export const GET = methodNotAllowed(["DELETE"]);
export const OPTIONS = optionsAnswer(["DELETE"]);
export { GET as POST, GET as PUT, GET as PATCH };
