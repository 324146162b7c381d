import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { nextCookies } from "better-auth/next-js";
import { settings, type Settings } from "@/lib/config/settings";
import { db, type Db } from "@/lib/db/client";
import { logger } from "@/lib/log/logger";
import { isPostgresUrl } from "@/lib/db/url";

/** Session lifetime: 8 hours, refreshed once an hour of use (a support shift, not a month). */
const SESSION_SECONDS = 8 * 60 * 60;
const SESSION_REFRESH_SECONDS = 60 * 60;

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

/**
 * Builds the better-auth instance on `prisma`: email and password only (no self sign-up: users are
 * created by the demo seed, `npm run create-user` or an admin), the `role` column exposed read-only,
 * and login attempts rate-limited per client IP with the buckets in the database, so every server
 * process shares them and a restart does not reset them (better-auth `rateLimit.storage: "database"`).
 * Throws when AUTH_SECRET is unset (production without it; the start checks refuse that first).
 */
export function createAuth(prisma: Db, config: Settings = settings()) {
  // Never fall back to a library default: sessions signed with a known secret can be forged.
  if (!config.AUTH_SECRET) throw new Error("AUTH_SECRET is not set: the dashboard cannot sign sessions");
  return betterAuth({
    appName: "Acredita",
    baseURL: authBaseUrl(config),
    trustedOrigins: authTrustedOrigins(config),
    secret: config.AUTH_SECRET,
    // The adapter builds slightly different queries per database (e.g. case-insensitive matching).
    database: prismaAdapter(prisma, { provider: isPostgresUrl(config.DATABASE_URL) ? "postgresql" : "sqlite" }),
    telemetry: { enabled: false },
    emailAndPassword: { enabled: true, disableSignUp: true, minPasswordLength: 10, maxPasswordLength: 128 },
    session: { expiresIn: SESSION_SECONDS, updateAge: SESSION_REFRESH_SECONDS },
    user: {
      additionalFields: {
        // input: false: no request can set its own role; only lib/auth/users.ts writes it.
        role: { type: "string", required: false, defaultValue: "merchant", input: false },
      },
    },
    rateLimit: {
      enabled: true,
      storage: "database",
      window: 60,
      max: 300,
      customRules: {
        "/sign-in/email": { window: config.AUTH_LOGIN_WINDOW_SECONDS, max: config.AUTH_LOGIN_MAX_ATTEMPTS },
        // Session reads happen on every page; they are not a guessing surface.
        "/get-session": false,
      },
    },
    advanced: {
      // Cookies marked Secure whenever the dashboard is served over https (derived from the base URL).
      useSecureCookies: authBaseUrl(config).startsWith("https:"),
      ipAddress: { ipAddressHeaders: ["x-forwarded-for"] },
    },
    logger: {
      log: (level, message) => {
        const text = String(message);
        if (level === "error") logger.error({ component: "auth" }, text);
        else if (level === "warn") logger.warn({ component: "auth" }, text);
        else logger.debug({ component: "auth" }, text);
      },
    },
    plugins: [nextCookies()],
  });
}

export type Auth = ReturnType<typeof createAuth>;

const globalForAuth = globalThis as unknown as { acreditaAuth?: Promise<Auth> };

/** The process's one auth instance, built on the process's database client on first use. */
export function getAuth(): Promise<Auth> {
  globalForAuth.acreditaAuth ??= db()
    .then((prisma) => createAuth(prisma))
    .catch((error: unknown) => {
      globalForAuth.acreditaAuth = undefined;
      throw error;
    });
  return globalForAuth.acreditaAuth;
}
