// POST /api/webhooks/[endpoint]: verify over the raw bytes, store once, apply, answer. Every other
// method is exported too so that it is answered 405 with `Allow: POST` and leaves a decision row
// (Next's own 405 has neither).
import { receiveWebhookRequest } from "@/lib/ingest/receive-webhook-request";

export const dynamic = "force-dynamic";

async function handle(request: Request, context: { params: Promise<{ endpoint: string }> }): Promise<Response> {
  const { endpoint } = await context.params;
  const answer = await receiveWebhookRequest(request, endpoint);
  return Response.json(answer.body, { status: answer.status, headers: answer.headers });
}

export { handle as POST, handle as GET, handle as HEAD, handle as PUT, handle as PATCH, handle as DELETE, handle as OPTIONS };
