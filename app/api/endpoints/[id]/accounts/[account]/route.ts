// PUT /api/endpoints/[id]/accounts/[account] {org, move?}: binds a connected account of a Stripe Connect
// endpoint to the organization its events belong to (201 new, 200 already so or moved); DELETE: unbinds
// it (204), its next events are recorded `ignored`. An admin or API_TOKEN, in the organization that owns
// the endpoint: another organization's endpoint is 404.
import { authorizeApi } from "@/lib/api/authorize-api";
import { bindingRefusalResponse, endpointActor, readJsonBody } from "@/lib/api/endpoint-answers";
import { invalidBody, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { bindConnectAccount, bindingBodySchema, unbindConnectAccount } from "@/lib/endpoints/connect-bindings";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string; account: string }> };

export async function PUT(request: Request, context: Context): Promise<Response> {
  const caller = await authorizeApi(request, "endpoints.manage", { scoped: true });
  const denied = refusal(caller);
  if (denied || typeof caller === "string") return denied!;
  const { id, account } = await context.params;
  const body = await readJsonBody(request);
  if (!body.ok) return body.response;
  const parsed = bindingBodySchema.safeParse(body.json);
  if (!parsed.success) return invalidBody(parsed.error);
  return withDatabaseErrors(async () => {
    const result = await bindConnectAccount(await db(), id, account, parsed.data, endpointActor(caller), { organizationId: caller.organizationId });
    if (result.kind !== "bound") return bindingRefusalResponse(result);
    return Response.json({ endpointId: result.binding.endpointId, account: result.binding.account, org: result.binding.org }, { status: result.created ? 201 : 200 });
  });
}

export async function DELETE(request: Request, context: Context): Promise<Response> {
  const caller = await authorizeApi(request, "endpoints.manage", { scoped: true });
  const denied = refusal(caller);
  if (denied || typeof caller === "string") return denied!;
  const { id, account } = await context.params;
  return withDatabaseErrors(async () => {
    const result = await unbindConnectAccount(await db(), id, account, endpointActor(caller), { organizationId: caller.organizationId });
    return result.kind === "unbound" ? new Response(null, { status: 204 }) : bindingRefusalResponse(result);
  });
}

export const GET = methodNotAllowed(["PUT", "DELETE"]);
export const OPTIONS = optionsAnswer(["PUT", "DELETE"]);
export { GET as POST, GET as PATCH };
