// /api/auth/*: better-auth's endpoints (sign-in, sign-out, session). A path no endpoint has answers
// 404 here, before better-auth reads or writes anything (lib/auth/auth-paths.ts); sign-in failures
// are limited per address in lib/auth/auth.ts.
import { getAuth } from "@/lib/auth/auth";
import { isAuthEndpoint } from "@/lib/auth/auth-paths";

export const dynamic = "force-dynamic";

async function handle(request: Request): Promise<Response> {
  const auth = await getAuth();
  if (!isAuthEndpoint(auth, new URL(request.url).pathname)) return Response.json({ error: "not found", code: "NOT_FOUND" }, { status: 404, headers: { "cache-control": "no-store" } });
  return auth.handler(request);
}

export const GET = handle;
export const POST = handle;
