import assert from "node:assert/strict";
import { test } from "node:test";
import { getIPFromHeader } from "@better-auth/core/utils/ip";
import { forwardedFor } from "@/lib/auth/client-address";
import { lockoutKey, lockSeconds } from "@/lib/auth/lockout";

const policy = { AUTH_LOCKOUT_THRESHOLD: 5, AUTH_LOCKOUT_BASE_SECONDS: 60, AUTH_LOCKOUT_MAX_SECONDS: 3_600 };

test("an account locks at the 5th consecutive failure for 60 s, doubling with each further one, capped", () => {
  assert.deepEqual([1, 2, 3, 4].map((failures) => lockSeconds(failures, policy)), [0, 0, 0, 0]);
  assert.deepEqual([5, 6, 7, 8, 9, 10, 11].map((failures) => lockSeconds(failures, policy)), [60, 120, 240, 480, 960, 1_920, 3_600]);
  assert.equal(lockSeconds(10_000, policy), 3_600);
});

test("the lockout key is the email trimmed and lower-cased; anything else has none", () => {
  assert.equal(lockoutKey("  Admin@Acredita.TEST "), "admin@acredita.test");
  assert.equal(lockoutKey(""), null);
  assert.equal(lockoutKey(42), null);
  assert.equal(lockoutKey("x".repeat(255)), null);
});

/** The client IP better-auth derives from the rewritten header (its own resolver, as auth.ts configures it). */
function clientOf(peer: string, forwarded: string | undefined, trusted: string[]): string | null {
  return getIPFromHeader(forwardedFor(peer, forwarded, trusted), { trustedProxies: trusted });
}

test("without trusted proxies a client's X-Forwarded-For is ignored: the socket address counts", () => {
  assert.equal(forwardedFor("198.51.100.7", "203.0.113.1", []), "198.51.100.7");
  assert.equal(clientOf("198.51.100.7", "203.0.113.1", []), "198.51.100.7");
  assert.equal(clientOf("198.51.100.7", "203.0.113.1, 203.0.113.2", []), "198.51.100.7");
  assert.equal(clientOf("::ffff:198.51.100.7", undefined, []), "198.51.100.7");
});

test("a peer that is not a trusted proxy is the client, whatever chain it sends", () => {
  assert.equal(clientOf("198.51.100.7", "203.0.113.1", ["10.0.0.0/8"]), "198.51.100.7");
  assert.equal(clientOf("198.51.100.7", "10.0.0.1", ["10.0.0.0/8"]), "198.51.100.7");
});

test("behind several trusted proxies the right-most untrusted hop is the client; spoofed left hops are skipped", () => {
  const trusted = ["127.0.0.1", "10.0.0.0/8"];
  // client 203.0.113.7 → edge proxy 10.0.0.5 (appends 203.0.113.7) → inner proxy 127.0.0.1 (appends 10.0.0.5) → app.
  assert.equal(forwardedFor("127.0.0.1", "6.6.6.6, 203.0.113.7, 10.0.0.5", trusted), "6.6.6.6, 203.0.113.7, 10.0.0.5, 127.0.0.1");
  assert.equal(clientOf("127.0.0.1", "6.6.6.6, 203.0.113.7, 10.0.0.5", trusted), "203.0.113.7");
  assert.equal(clientOf("127.0.0.1", "203.0.113.7", trusted), "203.0.113.7");
  assert.equal(clientOf("127.0.0.1", ["203.0.113.7", "10.0.0.5"] as unknown as string, trusted), "203.0.113.7");
  // A garbage hop before any untrusted one gives no address (better-auth then falls back to one shared bucket).
  assert.equal(clientOf("127.0.0.1", "not-an-ip", trusted), null);
});
