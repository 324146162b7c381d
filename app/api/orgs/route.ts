// POST /api/orgs {slug, name}: create an organization (201 {id, slug, name}; 409 for a taken slug, 400 for
// a bad one); GET /api/orgs: every organization. The operator's API_TOKEN only (docs/organizations.md).
import { apiActor, authorizeApi } from "@/lib/api/authorize-api";
import { readJsonBody } from "@/lib/api/endpoint-answers";
import { invalidBody, jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { createOrganization, listOrganizations, newOrganizationSchema } from "@/lib/organizations/organizations";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "organizations.manage", { scoped: true });
  if (typeof caller === "string") return refusal(caller)!;
  return withDatabaseErrors(async () => {
    const data = await listOrganizations(await db());
    return Response.json({ data, count: data.length });
  });
}

export async function POST(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "organizations.manage", { scoped: true });
  if (typeof caller === "string") return refusal(caller)!;
  const body = await readJsonBody(request);
  if (!body.ok) return body.response;
  const parsed = newOrganizationSchema.safeParse(body.json);
  if (!parsed.success) return invalidBody(parsed.error);
  return withDatabaseErrors(async () => {
    const result = await createOrganization(await db(), parsed.data, apiActor(caller));
    if (result.kind === "taken") return jsonError(409, "slug_taken", `slug ${parsed.data.slug} is taken by another organization`);
    return Response.json(result.organization, { status: 201 });
  });
}

export const PUT = methodNotAllowed(["GET", "POST"]);
export const OPTIONS = optionsAnswer(["GET", "POST"]);
export { PUT as PATCH, PUT as DELETE };
