// Runs before every route (Next.js 16 Proxy): a path with malformed percent-encoding is answered 400
// here, before a route tries to decode it (JSON under /api, the dashboard's 400 page otherwise; a
// webhook delivery gets the webhook route's unknown-endpoint 404);
// a server action's post (a POST with `Next-Action`, or any POST to a page) without a signed session
// cookie is answered 403 here, before Next.js decodes its body (every action needs a signed-in user;
// the language switch posts to /api/locale instead); every other request gets its address in
// REQUEST_PATH_HEADER for the sign-in redirect and the not-found pages, and a dashboard address of
// another organization than the default one (`/o/<slug>/orders`) is served as its page (`/orders`) with
// the slug in ORGANIZATION_PATH_HEADER.
import { createHmac } from "node:crypto";
import { NextResponse, type NextRequest } from "next/server";
import { malformedPathPage } from "@/lib/http/malformed-path-page";
import { isWellEncodedPath, pageAddress, REQUEST_PATH_HEADER } from "@/lib/http/request-path";
import { ORGANIZATION_HEADER, ORGANIZATION_PATH_HEADER, splitOrganizationPath } from "@/lib/http/organization-path";
import { LOCALE_COOKIE, resolveLocale } from "@/lib/i18n/locales";
import { hasSignedSessionCookie, isActionPost } from "@/lib/auth/session-cookie.mjs";
import { settings } from "@/lib/config/settings";

export function proxy(request: NextRequest): Response {
  const url = new URL(request.url);
  if (!isWellEncodedPath(url.pathname)) {
    if (url.pathname.startsWith("/api/webhooks/")) {
      // A sender's delivery to a name no endpoint can have: the webhook route's own 404 (counted as an
      // unknown endpoint), the same answer as the standalone receiver gives.
      return NextResponse.rewrite(new URL("/api/webhooks/(malformed)", request.url));
    }
    if (url.pathname === "/api" || url.pathname.startsWith("/api/")) {
      return Response.json({ error: "the path has malformed percent-encoding", code: "malformed_path" }, { status: 400 });
    }
    const locale = resolveLocale(request.cookies.get(LOCALE_COOKIE)?.value, request.headers.get("accept-language"));
    return new Response(malformedPathPage(locale, url.pathname), { status: 400, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });
  }
  if (isActionPost(request.method, url.pathname, request.headers) && !hasSignedSessionCookie((name) => request.cookies.get(name)?.value, settings().AUTH_SECRET ?? "")) {
    // Nothing is decoded: Next.js still takes the body off the socket (keeping at most
    // proxyClientMaxBodySize of it) before this answer goes out, but no action sees it.
    return Response.json({ error: "sign in first", code: "session_required" }, { status: 403, headers: { "cache-control": "no-store" } });
  }
  const headers = new Headers(request.headers);
  const secret = settings().AUTH_SECRET ?? "";
  const { slug, path } = splitOrganizationPath(url.pathname);
  if (slug !== undefined) {
    const target = `${path}${url.search}`;
    if (path === "/api" || path.startsWith("/api/")) {
      // A page's own API calls and downloads (`/o/<slug>/api/exports/orders.csv`) act in the same
      // organization: the API's own header (Acredita-Org), which authorizeApi checks like any other.
      headers.set(ORGANIZATION_HEADER, slug);
    } else {
      // The page is served at its own path with the organization the address names (lib/auth/session.ts
      // checks the user is a member there) and the address as the user typed it (sign-in's `next`).
      headers.set(ORGANIZATION_PATH_HEADER, slug);
      headers.set(REQUEST_PATH_HEADER, pageAddress(url));
      headers.set(FORWARDED_PROOF_HEADER, forwardedProof(secret, slug, pageAddress(new URL(target, request.url)), pageAddress(url)));
    }
    return NextResponse.rewrite(new URL(target, request.url), { request: { headers } });
  }
  // The rewritten request may come through here again (the server forwards it): it keeps the
  // organization and address it was given only with this proxy's own proof of them; a client's own
  // headers of those names are dropped, so only the address decides.
  const named = headers.get(ORGANIZATION_PATH_HEADER);
  const typed = headers.get(REQUEST_PATH_HEADER);
  const proven = named !== null && typed !== null && headers.get(FORWARDED_PROOF_HEADER) === forwardedProof(secret, named, pageAddress(url), typed);
  if (!proven) {
    headers.delete(ORGANIZATION_PATH_HEADER);
    headers.set(REQUEST_PATH_HEADER, pageAddress(url));
  }
  headers.delete(FORWARDED_PROOF_HEADER);
  return NextResponse.next({ request: { headers } });
}

/** The request header carrying {@link forwardedProof} from a rewrite to its second pass through the proxy. */
const FORWARDED_PROOF_HEADER = "x-acredita-forwarded";

/** An HMAC (AUTH_SECRET) of an organization's slug, the page path it was rewritten to and the address typed: what only this proxy can give. */
function forwardedProof(secret: string, slug: string, page: string, typed: string): string {
  return createHmac("sha256", secret).update(`acredita-organization\n${slug}\n${page}\n${typed}`).digest("base64url");
}

export const config = {
  // Not Next.js's static assets (their paths are generated, never malformed); nor the bodies Acredita
  // streams under its own caps, because a request the proxy runs for has its body cloned and buffered
  // (and cut at 1 MB, experimental.proxyClientMaxBodySize in next.config.mjs):
  // - a webhook delivery to a well-formed endpoint name: the route answers 413 past WEBHOOK_MAX_BODY_BYTES
  //   before the rest arrives (e2e/http/receiver-limits-server.test.ts); a name with a `%` still comes
  //   here, so a malformed one gets the unknown-endpoint 404;
  // - the settlement report upload (that path only: its run pages stay behind the proxy), streamed to
  //   disk up to RECONCILIATION_UPLOAD_MAX_BYTES (e2e/http/reconcile-concurrency.test.ts sends 12.8 MB).
  // Each exception ends at a `/` or the path's end: `/_next/staticfoo` is not a static asset and goes through.
  matcher: ["/((?!_next/static/|_next/image$|api/webhooks/[^/%]+$|api/reconciliations$).*)"],
};
