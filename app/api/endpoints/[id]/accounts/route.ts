// GET /api/endpoints/[id]/accounts: the connected accounts a Stripe Connect endpoint routes, each with
// the organization its events belong to. An admin or API_TOKEN, in the organization that owns the
// endpoint: another organization's endpoint is 404; another kind of endpoint is 400 not_connect.
import { authorizeApi } from "@/lib/api/authorize-api";
import { bindingRefusalResponse } from "@/lib/api/endpoint-answers";
import { methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { listConnectBindings } from "@/lib/endpoints/connect-bindings";

export const dynamic = "force-dynamic";

export async function GET(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const caller = await authorizeApi(request, "endpoints.manage", { scoped: true });
  const denied = refusal(caller);
  if (denied || typeof caller === "string") return denied!;
  const { id } = await context.params;
  return withDatabaseErrors(async () => {
    const result = await listConnectBindings(await db(), id, { organizationId: caller.organizationId });
    return result.kind === "list" ? Response.json({ data: result.data, count: result.count }) : bindingRefusalResponse(result);
  });
}

export const POST = methodNotAllowed(["GET"]);
export const OPTIONS = optionsAnswer(["GET"]);
export { POST as PUT, POST as PATCH, POST as DELETE };
