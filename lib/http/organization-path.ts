// The dashboard's addresses carry the organization they show: `/o/<slug>/orders` is the orders page of
// organization `<slug>`; the default organization's pages keep their short addresses (`/orders`), so
// links and bookmarks made before organizations still open the same books. proxy.ts reads the prefix,
// serves the page without it and hands the slug to the page in ORGANIZATION_PATH_HEADER.

/** The request header that names, by its slug, the organization a dashboard address asked for. Only proxy.ts sets it; it removes one a client sent. */
export const ORGANIZATION_PATH_HEADER = "x-acredita-organization";

/** The request header an API caller names the organization it acts in with (docs/organizations.md); lib/api/authorize-api.ts reads it. */
export const ORGANIZATION_HEADER = "acredita-org";

/** The default organization's slug, whose pages need no prefix (lib/organizations/organizations.ts DEFAULT_ORGANIZATION). */
const DEFAULT_SLUG = "default";

const PREFIXED = /^\/o\/([a-z0-9-]{2,40})(\/.*)?$/;

/**
 * Splits a dashboard path into the organization it names and the page's own path: `/o/acme/orders/A-1`
 * → `{ slug: "acme", path: "/orders/A-1" }`, `/o/acme` → `{ slug: "acme", path: "/" }`, `/orders` →
 * `{ slug: undefined, path: "/orders" }` (the default organization). A prefix that is not a slug
 * ([a-z0-9-]{2,40}) is no prefix.
 */
export function splitOrganizationPath(pathname: string): { slug: string | undefined; path: string } {
  const match = PREFIXED.exec(pathname);
  return match ? { slug: match[1], path: match[2] ?? "/" } : { slug: undefined, path: pathname };
}

/** The address prefix of an organization's pages: "" for the default organization, `/o/<slug>` for another. */
export function organizationBase(slug: string): string {
  return slug === DEFAULT_SLUG ? "" : `/o/${slug}`;
}

/**
 * A dashboard path (`/orders?page=2`) in the organization whose prefix is `base` ({@link organizationBase}).
 * Anything that is not a page of the dashboard stays as it is: a full URL, a fragment, `/api/...`, the
 * sign-in and password pages (one per person, not per organization), an already prefixed path.
 */
export function withOrganizationBase(base: string, href: string): string {
  if (!base || !href.startsWith("/") || href.startsWith("//")) return href;
  if (href === "/api" || href.startsWith("/api/") || href.startsWith("/sign-in") || href.startsWith("/account/") || href.startsWith("/o/") || href.startsWith("/_next/")) return href;
  return `${base}${href}`;
}

/**
 * A dashboard page's own API address (a download, a poll) in the organization whose prefix is `base`:
 * `/o/<slug>/api/...`, which proxy.ts serves as `/api/...` acting in that organization. The default
 * organization's stay as they are.
 */
export function apiPathIn(base: string, href: string): string {
  return base && (href === "/api" || href.startsWith("/api/")) ? `${base}${href}` : href;
}
