import { createHash, timingSafeEqual } from "node:crypto";
import { settings } from "@/lib/config/settings";

/** The token of `Authorization: Bearer <token>`, or null when the header is absent or another scheme. */
export function bearerToken(headers: Headers): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec((headers.get("authorization") ?? "").trim());
  return match ? match[1] : null;
}

/**
 * True when the request carries `Authorization: Bearer <API_TOKEN>` (the operator key). Always false
 * when no operator token is configured. Compared as SHA-256 digests in constant time, so neither the
 * content nor the length of the token leaks through timing.
 */
export function hasApiToken(headers: Headers, token: string | undefined = settings().API_TOKEN): boolean {
  const given = bearerToken(headers);
  if (!given || !token) return false;
  return timingSafeEqual(createHash("sha256").update(given).digest(), createHash("sha256").update(token).digest());
}
