import { createHash, timingSafeEqual } from "node:crypto";
import { settings } from "@/lib/config/settings";

/**
 * True when the request carries `Authorization: Bearer <API_TOKEN>`. Compared as SHA-256 digests in
 * constant time, so neither the content nor the length of the token leaks through timing. Always false
 * while no API_TOKEN is configured (production without an operator token).
 */
export function hasApiToken(headers: Headers, token: string | undefined = settings().API_TOKEN): boolean {
  if (!token) return false;
  const header = headers.get("authorization") ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match) return false;
  const given = createHash("sha256").update(match[1]).digest();
  const expected = createHash("sha256").update(token).digest();
  return timingSafeEqual(given, expected);
}
