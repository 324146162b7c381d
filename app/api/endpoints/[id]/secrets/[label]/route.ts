// DELETE /api/endpoints/[id]/secrets/[label]: retire one signing secret at once (409 for the last active
// secret of an enabled endpoint). An admin or API_TOKEN.
import { authorizeApi } from "@/lib/api/authorize-api";
import { endpointActor, endpointRefusalResponse } from "@/lib/api/endpoint-answers";
import { methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { retireSecret } from "@/lib/endpoints/endpoint-store";

export const dynamic = "force-dynamic";

export async function DELETE(request: Request, context: { params: Promise<{ id: string; label: string }> }): Promise<Response> {
  const caller = await authorizeApi(request, "endpoints.manage", { scoped: true });
  const denied = refusal(caller);
  if (denied || typeof caller === "string") return denied!;
  const { id, label } = await context.params;
  return withDatabaseErrors(async () => {
    const result = await retireSecret(await db(), id, label, endpointActor(caller), { organizationId: caller.organizationId });
    return result.kind === "retired" ? Response.json(result.secret) : endpointRefusalResponse(result);
  });
}

export const GET = methodNotAllowed(["DELETE"]);
export const OPTIONS = optionsAnswer(["DELETE"]);
export { GET as POST, GET as PUT, GET as PATCH };
