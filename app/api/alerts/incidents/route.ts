// GET /api/alerts/incidents[?status=open|resolved&page=&pageSize=]: the organization's incidents, newest
// first ({data, count, page, pageSize, totalPages}). Support and admin, in the organization they act in.
import { authorizeApi } from "@/lib/api/authorize-api";
import { methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { listIncidents } from "@/lib/alerts/list-incidents";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "alerts.read", { scoped: true });
  const denied = refusal(caller);
  if (denied || typeof caller === "string") return denied!;
  const params = new URL(request.url).searchParams;
  // Lenient: a value that is not one of the choices falls back to the default.
  const status = params.get("status");
  const page = Number(params.get("page")) || 1;
  const pageSize = Number(params.get("pageSize")) || 50;
  return withDatabaseErrors(async () => Response.json(await listIncidents(await db(), caller.organizationId, { status: status === "open" || status === "resolved" ? status : undefined, page, pageSize })));
}

export const POST = methodNotAllowed(["GET"]);
export const OPTIONS = optionsAnswer(["GET"]);
export { POST as PUT, POST as PATCH, POST as DELETE };
