import { because, type Because } from "@/lib/reasons/reason-codes";

const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]{1,64}\/[a-z0-9!#$&^_.+-]{1,64}$/;

/**
 * Checks a Content-Type: `application/json`, optionally with `charset=utf-8` (any case, quoted or not),
 * which is what every supported provider sends (Stripe: `application/json; charset=utf-8`; Standard
 * Webhooks and the lab: `application/json`) and what the JSON API takes. Returns undefined when acceptable, else the 415 reason,
 * which names the received media type only when it looks like one (the header is attacker-controlled).
 */
export function contentTypeProblem(header: string | null): string | undefined {
  return contentTypeBecause(header)?.reason;
}

/** {@link contentTypeProblem} with the reason's code and parameters (for the decision row). */
export function contentTypeBecause(header: string | null): Because | undefined {
  if (header === null || header.trim() === "") return because("content_type_missing", {});
  const [type, ...parameters] = header.split(";");
  const mediaType = type.trim().toLowerCase();
  if (mediaType !== "application/json") {
    return MEDIA_TYPE.test(mediaType) ? because("content_type_unsupported", { mediaType }) : because("content_type_unreadable", {});
  }
  for (const parameter of parameters) {
    const separator = parameter.indexOf("=");
    if (separator < 0) continue;
    if (parameter.slice(0, separator).trim().toLowerCase() !== "charset") continue;
    const charset = parameter.slice(separator + 1).trim().replace(/^"(.*)"$/, "$1").toLowerCase();
    if (charset !== "utf-8" && charset !== "utf8") return because("content_type_charset", {});
  }
  return undefined;
}
