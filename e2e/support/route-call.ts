// Route handlers called in process as Next.js calls them: a Web Request in, the path's segments as
// `params`, the Response read back whole. For the db-tier tests of the JSON API (no server started).

/** A route module's exported method handlers. */
type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response> | Response;

/** A route handler's answer: status, body as text and, when it is JSON, parsed (else `{}`). */
export interface RouteAnswer {
  status: number;
  json: Record<string, unknown>;
  text: string;
  headers: Headers;
}

/**
 * Calls `method` of the route module `route` (e.g. `import * as ordersRoute from "@/app/api/orders/route"`)
 * with a request to `url` (a path, on http://127.0.0.1), `headers`, the dynamic segments `params`, and a
 * body: a string is sent as it is, anything else as JSON (with its content type). Throws when the module
 * has no such method.
 */
export async function callRoute(route: unknown, method: string, url: string, headers: Record<string, string>, params: Record<string, string> = {}, body?: unknown): Promise<RouteAnswer> {
  const handler = (route as Record<string, Handler | undefined>)[method];
  if (!handler) throw new Error(`the route has no ${method} handler`);
  const init: RequestInit = { method, headers: { ...headers, ...(body === undefined || typeof body === "string" ? {} : { "content-type": "application/json" }) } };
  if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
  const response = await handler(new Request(`http://127.0.0.1${url}`, init), { params: Promise.resolve(params) });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    // A CSV or another text answer.
  }
  return { status: response.status, json, text, headers: response.headers };
}
