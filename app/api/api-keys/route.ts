// POST /api/api-keys {name, role, expiresAt?}: an API key that acts only in the caller's organization
// (201, the key in this answer only; only its SHA-256 is stored); GET /api/api-keys: that organization's
// keys, never a key. An organization's admin (session or key) or the operator (API_TOKEN, in the
// organization Acredita-Org names).
import { authorizeApi, keyCreatorOf } from "@/lib/api/authorize-api";
import { readJsonBody } from "@/lib/api/endpoint-answers";
import { invalidBody, jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { createOrganizationApiKey, listOrganizationApiKeys, organizationApiKeySchema } from "@/lib/auth/api-keys";
import { settings } from "@/lib/config/settings";
import { db } from "@/lib/db/client";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "users.manage", { scoped: true });
  if (typeof caller === "string") return refusal(caller)!;
  return withDatabaseErrors(async () => Response.json(await listOrganizationApiKeys(await db(), caller.organizationId), { headers: { "cache-control": "no-store" } }));
}

export async function POST(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "users.manage", { scoped: true });
  if (typeof caller === "string") return refusal(caller)!;
  const body = await readJsonBody(request);
  if (!body.ok) return body.response;
  const parsed = organizationApiKeySchema.safeParse(body.json);
  if (!parsed.success) return invalidBody(parsed.error);
  return withDatabaseErrors(async () => {
    const result = await createOrganizationApiKey(await db(), caller.organizationId, keyCreatorOf(caller), parsed.data, { defaultDays: settings().API_KEY_DEFAULT_DAYS });
    if (result.kind === "invalid") return jsonError(400, "invalid_body", result.message);
    return Response.json({ ...result.view, key: result.key }, { status: 201, headers: { "cache-control": "no-store" } });
  });
}

export const PUT = methodNotAllowed(["GET", "POST"]);
export const OPTIONS = optionsAnswer(["GET", "POST"]);
export { PUT as PATCH, PUT as DELETE };
