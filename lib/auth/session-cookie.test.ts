import assert from "node:assert/strict";
import { test } from "node:test";
import { serializeSignedCookie } from "better-call";
import { cookieValue, hasSignedSessionCookie, isActionPost, isSignedSessionCookie } from "@/lib/auth/session-cookie.mjs";

const SECRET = "session-cookie-test-secret-0123456789abcdef";

/** The cookie value better-auth sets (better-call's own signing, as the oracle), URL-encoded as in Set-Cookie. */
async function signed(token: string, secret = SECRET): Promise<string> {
  return (await serializeSignedCookie("better-auth.session_token", token, secret)).split(";")[0].split("=").slice(1).join("=");
}

test("a session cookie signed with the secret passes, URL-encoded or not; another secret's, a forged or a bare token does not", async () => {
  const value = await signed("tok_0123456789abcdef");
  assert.equal(isSignedSessionCookie(value, SECRET), true);
  assert.equal(isSignedSessionCookie(decodeURIComponent(value), SECRET), true);
  assert.equal(isSignedSessionCookie(await signed("tok_0123456789abcdef", `${SECRET}x`), SECRET), false);
  assert.equal(isSignedSessionCookie(`tok_other.${decodeURIComponent(value).split(".").at(-1)}`, SECRET), false);
  assert.equal(isSignedSessionCookie("tok_0123456789abcdef", SECRET), false);
  assert.equal(isSignedSessionCookie(`x.${"A".repeat(43)}=`, SECRET), false);
  assert.equal(isSignedSessionCookie("%E0%A4%A", SECRET), false);
  assert.equal(isSignedSessionCookie(value, ""), false, "no secret, nothing is signed");
});

test("either cookie name counts (plain, or __Secure- over https)", async () => {
  const value = await signed("tok_secure");
  assert.equal(hasSignedSessionCookie((name) => (name === "__Secure-better-auth.session_token" ? value : undefined), SECRET), true);
  assert.equal(hasSignedSessionCookie(() => undefined, SECRET), false);
});

test("an action post is a POST with Next-Action, or any POST to a page; API posts and other methods are not", () => {
  const headers = (values: Record<string, string> = {}) => new Headers(values);
  assert.deepEqual(
    [
      isActionPost("POST", "/dead-letters", headers({ "next-action": "60ab" })),
      isActionPost("POST", "/sign-in", headers({ "content-type": "multipart/form-data; boundary=x" })),
      isActionPost("POST", "/api/orders", headers({ "next-action": "60ab" })),
      isActionPost("POST", "/api/locale", headers()),
      isActionPost("GET", "/dead-letters", headers({ "next-action": "60ab" })),
    ],
    [true, true, true, false, false],
  );
});

test("a cookie's value is read from a Cookie header: the first of its name, as sent, quotes dropped; none when absent", () => {
  assert.deepEqual(
    [
      cookieValue("theme=dark; better-auth.session_token=tok.sig%3D; x=1", "better-auth.session_token"),
      cookieValue("better-auth.session_token=first;better-auth.session_token=second", "better-auth.session_token"),
      cookieValue('better-auth.session_token="quoted"', "better-auth.session_token"),
      cookieValue("xbetter-auth.session_token=no; novalue", "better-auth.session_token"),
      cookieValue(undefined, "better-auth.session_token"),
    ],
    ["tok.sig%3D", "first", "quoted", undefined, undefined],
  );
});
