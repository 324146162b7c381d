// The dashboard's origins, apart from better-auth itself: `npm start` and every API request read them,
// and neither should pay for loading better-auth (about a second of CPU) to do so.
import { settings, type Settings } from "@/lib/config/settings";

/** The dashboard's public origin: AUTH_BASE_URL, else http://127.0.0.1:<PORT> (what `npm start` binds). */
export function authBaseUrl(config: Settings = settings()): string {
  return config.AUTH_BASE_URL ?? `http://127.0.0.1:${config.PORT}`;
}

/**
 * Origins allowed to post sign-in and session requests (better-auth compares the request's Origin, and
 * 403s INVALID_ORIGIN otherwise): the base URL, its localhost/127.0.0.1 twin, and AUTH_TRUSTED_ORIGINS.
 */
export function authTrustedOrigins(config: Settings = settings()): string[] {
  const base = new URL(authBaseUrl(config));
  const origins = new Set([base.origin, ...config.AUTH_TRUSTED_ORIGINS.map((url) => new URL(url).origin)]);
  if (base.hostname === "127.0.0.1") origins.add(`${base.protocol}//localhost${base.port ? `:${base.port}` : ""}`);
  if (base.hostname === "localhost") origins.add(`${base.protocol}//127.0.0.1${base.port ? `:${base.port}` : ""}`);
  return [...origins];
}
