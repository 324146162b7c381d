// GET /api/alerts/channels: the organization's alert channels (never a secret); POST: add one (201; a
// webhook channel's signing secret is in this answer only). Support reads, an admin adds; each caller
// in the organization it acts in (lib/api/authorize-api.ts).
import { authorizeApi } from "@/lib/api/authorize-api";
import { readJsonBody } from "@/lib/api/endpoint-answers";
import { invalidBody, jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { createAlertChannel, listAlertChannels, newAlertChannelSchema } from "@/lib/alerts/alert-channels";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "alerts.read", { scoped: true });
  const denied = refusal(caller);
  if (denied || typeof caller === "string") return denied!;
  return withDatabaseErrors(async () => Response.json(await listAlertChannels(await db(), caller.organizationId)));
}

export async function POST(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "alerts.manage", { scoped: true });
  const denied = refusal(caller);
  if (denied || typeof caller === "string") return denied!;
  const body = await readJsonBody(request);
  if (!body.ok) return body.response;
  const parsed = newAlertChannelSchema.safeParse(body.json);
  if (!parsed.success) return invalidBody(parsed.error);
  return withDatabaseErrors(async () => {
    const result = await createAlertChannel(await db(), caller.organizationId, parsed.data);
    if (result.kind === "invalid") return jsonError(400, "invalid_body", result.message);
    if (result.kind === "unavailable") return jsonError(503, result.code, result.message);
    return Response.json({ ...result.channel, ...(result.secret ? { secret: result.secret } : {}) }, { status: 201, headers: { location: `/api/alerts/channels/${result.channel.id}`, "cache-control": "no-store" } });
  });
}

export const PUT = methodNotAllowed(["GET", "POST"]);
export const OPTIONS = optionsAnswer(["GET", "POST"]);
export { PUT as PATCH, PUT as DELETE };
