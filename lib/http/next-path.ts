const FALLBACK = "/orders";
/** A base that no real request has: a `next` that resolves to any other origin leaves the site. */
const PROBE_ORIGIN = "http://acredita.invalid";

/**
 * Where to go after signing in: a same-site path from `?next=`, else /orders. Takes the raw query value
 * (the first one when repeated) and returns a path that starts with exactly one `/`.
 *
 * The value is read the way a browser reads a URL (WHATWG URL parsing, which drops tabs and newlines
 * and turns `\` into `/`, so `/\t/evil.example` is `//evil.example` to Chromium): anything with a
 * control character or a backslash, anything that does not start with `/`, anything that resolves to
 * another origin, and any resolved path that starts with `//` falls back. The normalised path is what
 * is returned, so the browser is never handed a different reading of it than this check made.
 */
export function safeNextPath(value: string | string[] | undefined): string {
  const next = Array.isArray(value) ? value[0] : value;
  // eslint-disable-next-line no-control-regex
  if (!next || next.length > 2_048 || !next.startsWith("/") || /[\u0000-\u001f\u007f-\u009f\\]/.test(next)) return FALLBACK;
  let url: URL;
  try {
    url = new URL(next, PROBE_ORIGIN);
  } catch {
    return FALLBACK;
  }
  if (url.origin !== PROBE_ORIGIN) return FALLBACK;
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (!path.startsWith("/") || path.startsWith("//")) return FALLBACK;
  return path;
}
