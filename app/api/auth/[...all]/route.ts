// /api/auth/*: better-auth's endpoints (sign-in, sign-out, session), rate-limited in lib/auth/auth.ts.
import { getAuth } from "@/lib/auth/auth";

export const dynamic = "force-dynamic";

async function handle(request: Request): Promise<Response> {
  return (await getAuth()).handler(request);
}

export const GET = handle;
export const POST = handle;
