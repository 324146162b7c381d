import { createHmac, timingSafeEqual } from "node:crypto";

/** HMAC-SHA256 of `message` under `secret` (raw key bytes or UTF-8 text); returns the 32-byte digest. */
export function hmacSha256(secret: string | Buffer, ...message: (string | Buffer)[]): Buffer {
  const mac = createHmac("sha256", secret);
  for (const part of message) mac.update(part);
  return mac.digest();
}

/** Compares two byte strings in constant time; different lengths are unequal (checked without early exit on content). */
export function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

/** Decodes lowercase/uppercase hex; returns undefined for anything that is not whole hex bytes. */
export function decodeHex(text: string): Buffer | undefined {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(text)) return undefined;
  return Buffer.from(text, "hex");
}

/** Decodes standard base64 (with or without padding); returns undefined when the text is not base64. */
export function decodeBase64(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return undefined;
  return Buffer.from(text, "base64");
}
