import { randomBytes, randomInt } from "node:crypto";

const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const ID_RANDOM_CHARACTERS = 20;

/** A data endpoint's id: `ep_` and 20 characters of [a-z0-9]. Environment-configured names never contain `_`. */
export const DATA_ENDPOINT_ID_PATTERN = /^ep_[a-z0-9]{20}$/;

/**
 * A new data endpoint id: `ep_` + 20 characters drawn uniformly from [a-z0-9] by node:crypto's CSPRNG
 * (`randomInt` rejects biased draws): log2(36^20) ≈ 103 random bits and nothing time-ordered, so the
 * URL `/api/webhooks/<id>` cannot be guessed or enumerated.
 */
export function newDataEndpointId(): string {
  let id = "ep_";
  for (let index = 0; index < ID_RANDOM_CHARACTERS; index++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

/** True when a URL name is shaped like a data endpoint id (only those are looked up in the database). */
export function isDataEndpointId(name: string): boolean {
  return DATA_ENDPOINT_ID_PATTERN.test(name);
}

/**
 * A signing secret Acredita makes for an endpoint whose sender takes one from the receiver: Standard
 * Webhooks `whsec_` + base64 of 24 random bytes (the spec's recommended size, between its 24 and 64
 * bytes bounds: standardwebhooks.com, "Signature scheme"); the lab 32 random bytes in hex.
 */
export function generatedSigningSecret(provider: "standard-webhooks" | "lab"): string {
  return provider === "standard-webhooks" ? `whsec_${randomBytes(24).toString("base64")}` : randomBytes(32).toString("hex");
}
