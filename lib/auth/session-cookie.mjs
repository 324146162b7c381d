// The session checks that run before a request body is read: in proxy.ts and in npm start's server
// (lib/server/app-server.mjs). Plain JavaScript: that server process runs without a TypeScript loader.
import { createHmac, timingSafeEqual } from "node:crypto";

/** better-auth's session cookie, plain and with the `__Secure-` prefix it takes over https. */
export const SESSION_COOKIE_NAMES = /** @type {const} */ (["better-auth.session_token", "__Secure-better-auth.session_token"]);

/**
 * True when `value` (a session cookie's value, URL-encoded or not) is `<token>.<signature>` with the
 * signature better-auth gives it: base64 HMAC-SHA256 of the token under `secret` (better-call's
 * signed cookies, 44 characters ending in `=`). Costs one HMAC and no database read, so it can run on
 * every request that would make Next.js decode a body. It proves the cookie was issued by a server
 * holding AUTH_SECRET, not that the session is still alive: the action itself still reads the session
 * and the role from the database. Never throws.
 * @param {string | undefined} value
 * @param {string} secret
 * @returns {boolean}
 */
export function isSignedSessionCookie(value, secret) {
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
 * @param {(name: string) => string | undefined} get
 * @param {string} secret
 * @returns {boolean}
 */
export function hasSignedSessionCookie(get, secret) {
  return SESSION_COOKIE_NAMES.some((name) => isSignedSessionCookie(get(name), secret));
}

/**
 * True for a request whose body Next.js would decode as a server action's arguments: a POST carrying
 * `Next-Action` (a fetch action), or any POST to a page (outside /api/), where Next.js parses a
 * multipart body to look for a no-JavaScript action. No page takes a POST for anything else, and every
 * server action needs a signed-in user, so these are refused without a signed session cookie before
 * Next.js reads the body. Route handlers under /api/ read their own bodies under their own caps.
 * `headers` is a Fetch `Headers` or anything that answers `has(name)` for a lower-case name.
 * @param {string} method
 * @param {string} pathname
 * @param {{ has(name: string): boolean }} headers
 * @returns {boolean}
 */
export function isActionPost(method, pathname, headers) {
  if (method !== "POST") return false;
  return headers.has("next-action") || !(pathname === "/api" || pathname.startsWith("/api/"));
}

/**
 * The value of the cookie `name` in a `Cookie` request header (RFC 6265 section 5.4: `name=value`
 * pairs separated by `;`), the first one when repeated, or undefined. The value is returned as sent
 * (still percent-encoded: {@link isSignedSessionCookie} decodes it). Never throws.
 * @param {string | undefined} header
 * @param {string} name
 * @returns {string | undefined}
 */
export function cookieValue(header, name) {
  if (!header) return undefined;
  for (const pair of header.split(";")) {
    const equals = pair.indexOf("=");
    if (equals < 0) continue;
    if (pair.slice(0, equals).trim() === name) return pair.slice(equals + 1).trim().replace(/^"(.*)"$/, "$1");
  }
  return undefined;
}
