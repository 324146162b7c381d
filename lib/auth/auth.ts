import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError, createAuthMiddleware, getIP, getSessionFromCtx, isAPIError } from "better-auth/api";
import { nextCookies } from "better-auth/next-js";
import { admin } from "better-auth/plugins";
import { createAccessControl } from "better-auth/plugins/access";
import { adminAc, defaultStatements } from "better-auth/plugins/admin/access";
import { clearFailures, lockedFor, lockoutKey, recordFailure } from "@/lib/auth/lockout";
import { PASSWORD_MAX_LENGTH, passwordReason } from "@/lib/auth/passwords";
import { CHANGE_PASSWORD_RULE, rateLimitRowLifetimeSeconds, refundSignInAttempt, reserveSignInAttempt, SIGN_IN_PATH, signInBucketKey, signInRule } from "@/lib/auth/sign-in-limit";
import { settings, type Settings } from "@/lib/config/settings";
import { authBaseUrl, authTrustedOrigins } from "@/lib/auth/origins";
import { db, type Db } from "@/lib/db/client";
import { logger } from "@/lib/log/logger";
import { isPostgresUrl } from "@/lib/db/url";
import { recordAudit } from "@/lib/audit/record-audit";
import { because } from "@/lib/reasons/reason-codes";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";

/** Idle session lifetime: 8 hours, refreshed once an hour of use (a support shift, not a month). */
const SESSION_SECONDS = 8 * 60 * 60;
const SESSION_REFRESH_SECONDS = 60 * 60;

/**
 * The admin plugin's access control: admin holds all of its user and session permissions, merchant and
 * support none (their dashboard rights are in lib/auth/roles.ts). Listing the three roles also makes
 * the plugin refuse any other role name in set-role.
 */
const accessControl = createAccessControl(defaultStatements);
const pluginRoles = {
  admin: accessControl.newRole(adminAc.statements),
  support: accessControl.newRole({ user: [], session: [] }),
  merchant: accessControl.newRole({ user: [], session: [] }),
};

/** The bucket of sign-ins whose client address cannot be read (better-auth's own name for it). */
const NO_ADDRESS = "no-trusted-ip";

/** better-auth paths whose body carries a new password, and the field holding it. */
const NEW_PASSWORD_FIELDS: Record<string, string> = {
  "/change-password": "newPassword",
  "/admin/set-user-password": "newPassword",
  "/admin/create-user": "password",
};

/**
 * Builds the better-auth instance on `prisma`: email and password only (no self sign-up: users are
 * created by the demo seed, `npm run create-user` or an admin), the `role` column exposed read-only,
 * and failed sign-ins limited per client IP with the buckets in the database (RateLimit), so every
 * server process shares them and a restart does not reset them: a successful sign-in gives its
 * attempt back (lib/auth/sign-in-limit.ts). better-auth's own database limiter keeps only its
 * password-change rule; every other path has no bucket, so anonymous traffic to any path writes no
 * row (unknown paths answer 404 before the handler, lib/auth/auth-paths.ts).
 * The client IP is X-Forwarded-For as rewritten by lib/auth/client-address.ts, walked right to left
 * through TRUSTED_PROXIES. The admin plugin bans (deactivates) users and lists and revokes sessions;
 * its HTTP endpoints are closed (404): the dashboard calls them server-side, audited. Hooks add a
 * per-account lockout (lib/auth/lockout.ts, 423 while locked, even for the right password), the
 * password rule (lib/auth/passwords.ts) on every path that sets one, and a password change always ends
 * the user's other sessions.
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
    // The strength rule (12+ characters, zxcvbn) runs in the before hook; better-auth's own floor stays lower
    // so that existing users with older 10-character passwords can still sign in and change them.
    // No e-mail is sent, so no reset link can exist: the reset endpoints are closed (they also ran the
    // password check before any token was read).
    disabledPaths: ["/request-password-reset", "/forget-password", "/reset-password", "/reset-password/:token"],
    emailAndPassword: { enabled: true, disableSignUp: true, minPasswordLength: 10, maxPasswordLength: PASSWORD_MAX_LENGTH, revokeSessionsOnPasswordReset: true },
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
      // Applies to no path (every one has a rule below); as the longest window it is also how long
      // better-auth's own pruning keeps a row, which must outlive the sign-in window.
      window: rateLimitRowLifetimeSeconds(config),
      max: 300,
      // The first matching rule wins, in this order. Only a password check is worth a bucket: a bucket
      // per address and path for everything else let anyone add a row per request.
      customRules: {
        // Failures only, counted in the hooks below (a success gives its attempt back).
        [SIGN_IN_PATH]: false,
        "/change-password": CHANGE_PASSWORD_RULE,
        "/**": false,
      },
    },
    advanced: {
      // Cookies marked Secure whenever the dashboard is served over https (derived from the base URL).
      useSecureCookies: authBaseUrl(config).startsWith("https:"),
      ipAddress: { ipAddressHeaders: ["x-forwarded-for"], trustedProxies: config.TRUSTED_PROXIES },
    },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        // The admin plugin's endpoints are for server-side calls only (audited dashboard actions).
        if (ctx.request && ctx.path.startsWith("/admin/")) throw new APIError("NOT_FOUND", { message: "not found", code: "NOT_FOUND" });
        if (ctx.path === SIGN_IN_PATH) {
          // Per client address first: a locked account's 423 counts as a failed attempt like a 401.
          // A request whose address cannot be read shares one bucket (better-auth's own fallback); a
          // server-side call (no request) has none.
          if (ctx.request) {
            const ip = getIP(ctx.request, ctx.context.options) ?? NO_ADDRESS;
            const reserved = await reserveSignInAttempt(prisma, signInBucketKey(ip), signInRule(config));
            if (!reserved.allowed) {
              throw new APIError("TOO_MANY_REQUESTS", { message: "Too many requests. Please try again later.", code: "TOO_MANY_REQUESTS" }, { "x-retry-after": String(reserved.retryAfter) });
            }
          }
          const email = lockoutKey((ctx.body as { email?: unknown } | undefined)?.email);
          const seconds = email ? await lockedFor(prisma, email) : 0;
          if (seconds > 0) {
            throw new APIError(
              "LOCKED",
              { code: "ACCOUNT_LOCKED", message: `this account is locked after repeated failed sign-ins; try again in ${seconds} s` },
              { "retry-after": String(seconds), "x-retry-after": String(seconds) },
            );
          }
          return;
        }
        const field = NEW_PASSWORD_FIELDS[ctx.path];
        if (!field) return;
        // The strength check costs CPU: only a signed-in user's change reaches it (better-auth answers 401 otherwise).
        if (ctx.path === "/change-password" && !(await getSessionFromCtx(ctx))) return;
        const body = (ctx.body ?? {}) as Record<string, unknown>;
        const password = body[field];
        if (typeof password === "string") {
          const inputs = [body.email, body.name].filter((value): value is string => typeof value === "string");
          const problem = passwordReason(password, inputs);
          // `reason`: the same as a reason code, which the password page shows in the reader's language.
          if (problem) throw new APIError("BAD_REQUEST", { code: "WEAK_PASSWORD", message: `password ${problem.reason}`, reason: problem.reasonRef });
        }
        // A changed password ends every other session of the user (a thief's included).
        if (ctx.path === "/change-password") return { context: { body: { ...body, revokeOtherSessions: true } } };
      }),
      after: createAuthMiddleware(async (ctx) => {
        if (ctx.path === "/get-session") {
          const returned = ctx.context.returned as { session?: { token: string; createdAt: Date | string } } | null | undefined;
          if (returned?.session && sessionTooOld(returned.session.createdAt, config)) {
            await ctx.context.internalAdapter.deleteSession(returned.session.token);
            return ctx.json(null);
          }
          return;
        }
        if (ctx.path === "/change-password") {
          // A password change is audited: who, when (never the password), and that their other sessions ended.
          const user = (ctx.context.session as { user?: { id: string; email: string } } | null | undefined)?.user;
          if (user && !isAPIError(ctx.context.returned)) await recordAudit(prisma, { id: user.id, email: user.email, organizationId: DEFAULT_ORGANIZATION.id }, { action: "user.password_change", targetType: "user", targetId: user.id, note: because("audit_password_changed", { email: user.email }) });
          return;
        }
        if (ctx.path !== SIGN_IN_PATH) return;
        if (ctx.context.newSession && ctx.request) {
          // A success does not count against its address: only failures stay in the bucket.
          await refundSignInAttempt(prisma, signInBucketKey(getIP(ctx.request, ctx.context.options) ?? NO_ADDRESS));
        }
        const email = lockoutKey((ctx.body as { email?: unknown } | undefined)?.email);
        if (!email) return;
        const returned = ctx.context.returned;
        if (isAPIError(returned)) {
          if (returned.statusCode === 401) await recordFailure(prisma, email, config);
        } else if (ctx.context.newSession) {
          await clearFailures(prisma, email);
        }
      }),
    },
    logger: {
      log: (level, message) => {
        const text = String(message);
        if (level === "error") logger.error({ component: "auth" }, text);
        else if (level === "warn") logger.warn({ component: "auth" }, text);
        else logger.debug({ component: "auth" }, text);
      },
    },
    plugins: [
      admin({ ac: accessControl, roles: pluginRoles, adminRoles: ["admin"], defaultRole: "merchant", bannedUserMessage: "This account is deactivated." }),
      nextCookies(),
    ],
  });
}

/** True when a session created at `createdAt` is past the absolute lifetime (SESSION_MAX_AGE_DAYS). */
export function sessionTooOld(createdAt: Date | string, config: Settings = settings(), now = Date.now()): boolean {
  return now - new Date(createdAt).getTime() > config.SESSION_MAX_AGE_DAYS * 86_400_000;
}

/**
 * The session of a request (`auth.api.getSession`), or null: none, expired by idleness, or past its
 * absolute lifetime (then it is deleted, so the cookie is dead everywhere).
 */
export async function validSession(auth: Auth, headers: Headers) {
  const session = await auth.api.getSession({ headers });
  if (!session) return null;
  if (sessionTooOld(session.session.createdAt)) {
    await (await auth.$context).internalAdapter.deleteSession(session.session.token);
    return null;
  }
  return session;
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
