// POST /api/locale: the language switch (a plain form, no session needed, so the sign-in page has it
// too): sets the locale cookie and goes back to the page (303). The rules: lib/http/locale-switch.ts.
import { answerLocaleSwitch } from "@/lib/http/locale-switch";

export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  const answer = await answerLocaleSwitch(request);
  if (!answer.ok) return Response.json({ error: "the language could not be changed", code: answer.code }, { status: answer.status, headers: { "cache-control": "no-store" } });
  return new Response(null, { status: 303, headers: { location: answer.location, "set-cookie": answer.cookie, "cache-control": "no-store" } });
}
