// POST /api/endpoints/[id]/secrets {secret?, overlapSeconds?}: rotate the endpoint's signing secret; the
// previous ones keep verifying until previousExpiresAt (201; a generated secret is in this answer only).
import { endpointActor, endpointRefusalResponse, endpointRequest } from "@/lib/api/endpoint-answers";
import { methodNotAllowed, optionsAnswer, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { rotateSecret, rotationSchema } from "@/lib/endpoints/endpoint-store";

export const dynamic = "force-dynamic";

export async function POST(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const call = await endpointRequest(request, context, rotationSchema);
  if (!call.ok) return call.response;
  const { caller, params, body } = call;
  return withDatabaseErrors(async () => {
    const result = await rotateSecret(await db(), params.id, body, endpointActor(caller), { organizationId: caller.organizationId });
    if (result.kind !== "rotated") return endpointRefusalResponse(result);
    return Response.json({ label: result.label, ...(result.secret ? { secret: result.secret } : {}), previousExpiresAt: result.previousExpiresAt }, { status: 201, headers: { "cache-control": "no-store" } });
  });
}

export const GET = methodNotAllowed(["POST"]);
export const OPTIONS = optionsAnswer(["POST"]);
export { GET as PUT, GET as PATCH, GET as DELETE };
