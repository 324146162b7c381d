import type { Auth } from "@/lib/auth/auth";

/** Where better-auth's endpoints are served (app/api/auth/[...all]/route.ts). */
export const AUTH_BASE_PATH = "/api/auth";

/** better-auth paths no HTTP request may reach: the closed reset flow, and the admin plugin (server-side calls only). */
const CLOSED = (path: string) => path.startsWith("/admin/") || path === "/request-password-reset" || path === "/forget-password" || path.startsWith("/reset-password");

const matchers = new WeakMap<object, RegExp[]>();

/** One pattern per open endpoint: its path, with each `:param` one segment. */
function endpointPatterns(auth: Auth): RegExp[] {
  let patterns = matchers.get(auth);
  if (!patterns) {
    const paths = Object.values(auth.api as Record<string, { path?: unknown }>)
      .map((endpoint) => endpoint.path)
      .filter((path): path is string => typeof path === "string" && path.startsWith("/") && !CLOSED(path));
    patterns = [...new Set(paths)].map((path) => new RegExp(`^${path.split("/").map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/")}$`));
    matchers.set(auth, patterns);
  }
  return patterns;
}

/**
 * True when `pathname` (a request's URL path, e.g. `/api/auth/sign-in/email`) names an endpoint this
 * better-auth instance serves to HTTP requests: the paths of `auth.api`, less the closed ones (the
 * reset flow and the admin plugin, which answer 404 anyway). The route handler answers any other path
 * 404 before better-auth runs, so a request to a made-up path reads and writes nothing (each used to
 * leave a rate-limit row keyed by its path). Never throws.
 */
export function isAuthEndpoint(auth: Auth, pathname: string): boolean {
  if (!pathname.startsWith(`${AUTH_BASE_PATH}/`)) return false;
  const path = pathname.slice(AUTH_BASE_PATH.length);
  return endpointPatterns(auth).some((pattern) => pattern.test(path));
}
