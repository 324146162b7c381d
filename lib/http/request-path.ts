/**
 * The request's path as the proxy (proxy.ts) saw it, handed to pages in this request header: the
 * dashboard layout uses it for the sign-in redirect's `next`, and the not-found pages to name what was
 * asked for. The proxy always overwrites it, so a client cannot choose its value.
 */
export const REQUEST_PATH_HEADER = "x-acredita-path";

/** Next.js's own query parameters that are not part of the page's address. */
const INTERNAL_PARAMS = ["_rsc"];

/**
 * True when every `%` in `pathname` starts a valid escape and the escapes decode as UTF-8
 * (`decodeURIComponent` accepts each segment). `/orders/%ZZ`, `/orders/%E0%A4%A` and `/x/%C3%28` are
 * malformed: RFC 3986 section 2.1 defines `%` only followed by two hex digits, and WHATWG URL paths
 * are UTF-8.
 */
export function isWellEncodedPath(pathname: string): boolean {
  try {
    for (const segment of pathname.split("/")) decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/** The page address to come back to: the path and query, without Next.js's internal parameters. */
export function pageAddress(url: URL): string {
  const params = new URLSearchParams(url.search);
  for (const name of INTERNAL_PARAMS) params.delete(name);
  const query = params.toString();
  return `${url.pathname}${query ? `?${query}` : ""}`;
}

/** The last path segment of `path` (without its query), percent-decoded; undefined when it cannot be decoded. */
export function lastSegment(path: string | null | undefined): string | undefined {
  if (!path) return undefined;
  const segment = path.split("?")[0].split("/").filter(Boolean).at(-1);
  if (!segment) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
