import { createHmac, timingSafeEqual } from "node:crypto";

/** better-auth's session cookie, plain and with the `__Secure-` prefix it takes over https. */
export const SESSION_COOKIE_NAMES = ["better-auth.session_token", "__Secure-better-auth.session_token"] as const;

/**
 * True when `value` (a session cookie's value, URL-encoded or not) is `<token>.<signature>` with the
 * signature better-auth gives it: base64 HMAC-SHA256 of the token under `secret` (better-call's
 * signed cookies, 44 characters ending in `=`). Costs one HMAC and no database read, so proxy.ts can
 * run it on every request that would make Next.js decode a body. It proves the cookie was issued by a
 * server holding AUTH_SECRET, not that the session is still alive: the action itself still reads the
 * session and the role from the database. Never throws.
 */
export function isSignedSessionCookie(value: string | undefined, secret: string): boolean {
  // Without a secret any signature could be made: nothing counts as signed.
  if (!secret || !value || value.length > 512) return false;
  let decoded = value;
  if (value.includes("%")) {
    try {
      decoded = decodeURIComponent(value);
    } catch {
      return false;
    }
  }
  const dot = decoded.lastIndexOf(".");
  if (dot < 1) return false;
  const signature = decoded.slice(dot + 1);
  if (signature.length !== 44 || !signature.endsWith("=")) return false;
  const expected = createHmac("sha256", secret).update(decoded.slice(0, dot)).digest();
  const given = Buffer.from(signature, "base64");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * True when the request's cookies (`get` reads one by name) hold a session cookie signed with
 * `secret` under either of {@link SESSION_COOKIE_NAMES}. Never throws.
 */
export function hasSignedSessionCookie(get: (name: string) => string | undefined, secret: string): boolean {
  return SESSION_COOKIE_NAMES.some((name) => isSignedSessionCookie(get(name), secret));
}

/**
 * True for a request whose body Next.js would decode as a server action's arguments: a POST carrying
 * `Next-Action` (a fetch action), or any POST to a page (outside /api/), where Next.js parses a
 * multipart body to look for a no-JavaScript action. No page takes a POST for anything else, and every
 * server action needs a signed-in user, so proxy.ts refuses these without a signed session cookie
 * before Next.js reads the body. Route handlers under /api/ read their own bodies under their own caps.
 */
export function isActionPost(method: string, pathname: string, headers: Headers): boolean {
  if (method !== "POST") return false;
  return headers.has("next-action") || !(pathname === "/api" || pathname.startsWith("/api/"));
}
