// DELETE /api/alerts/channels/[id]: removes an alert channel (it receives nothing new; 204). An admin, in
// the organization it acts in: another organization's channel is 404, like one that does not exist.
import { authorizeApi } from "@/lib/api/authorize-api";
import { jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { removeAlertChannel } from "@/lib/alerts/alert-channels";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export async function DELETE(request: Request, context: Context): Promise<Response> {
  const caller = await authorizeApi(request, "alerts.manage", { scoped: true });
  const denied = refusal(caller);
  if (denied || typeof caller === "string") return denied!;
  const { id } = await context.params;
  return withDatabaseErrors(async () =>
    (await removeAlertChannel(await db(), caller.organizationId, id)) ? new Response(null, { status: 204 }) : jsonError(404, "not_found", `alert channel ${id.slice(0, 40)} not found`),
  );
}

export const GET = methodNotAllowed(["DELETE"]);
export const OPTIONS = optionsAnswer(["DELETE"]);
export { GET as POST, GET as PUT, GET as PATCH };
