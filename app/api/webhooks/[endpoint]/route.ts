// POST /api/webhooks/[endpoint]: verify over the raw bytes, store once, apply, answer.
import { receiveWebhook } from "@/lib/webhooks/receive-webhook";

export const dynamic = "force-dynamic";

export async function POST(request: Request, context: { params: Promise<{ endpoint: string }> }): Promise<Response> {
  const { endpoint } = await context.params;
  const body = Buffer.from(await request.arrayBuffer());
  const answer = await receiveWebhook({ endpointName: endpoint, headers: request.headers, body });
  return Response.json(answer.body, { status: answer.status });
}
