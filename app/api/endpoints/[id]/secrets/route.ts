// POST /api/endpoints/[id]/secrets {secret?, overlapSeconds?}: rotate the endpoint's signing secret; the
// previous ones keep verifying until previousExpiresAt (201; a generated secret is in this answer only).
import { authorizeApi } from "@/lib/api/authorize-api";
import { endpointActor, endpointRefusalResponse, readJsonBody } from "@/lib/api/endpoint-answers";
import { invalidBody, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { rotateSecret, rotationSchema } from "@/lib/endpoints/endpoint-store";

export const dynamic = "force-dynamic";

export async function POST(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const caller = await authorizeApi(request, "endpoints.manage", { scoped: true });
  const denied = refusal(caller);
  if (denied || typeof caller === "string") return denied!;
  const { id } = await context.params;
  const body = await readJsonBody(request);
  if (!body.ok) return body.response;
  const parsed = rotationSchema.safeParse(body.json);
  if (!parsed.success) return invalidBody(parsed.error);
  return withDatabaseErrors(async () => {
    const result = await rotateSecret(await db(), id, parsed.data, endpointActor(caller), { organizationId: caller.organizationId });
    if (result.kind !== "rotated") return endpointRefusalResponse(result);
    return Response.json({ label: result.label, ...(result.secret ? { secret: result.secret } : {}), previousExpiresAt: result.previousExpiresAt }, { status: 201, headers: { "cache-control": "no-store" } });
  });
}

export const GET = methodNotAllowed(["POST"]);
export const OPTIONS = optionsAnswer(["POST"]);
export { GET as PUT, GET as PATCH, GET as DELETE };
