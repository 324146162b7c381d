// Types for session-cookie.mjs (plain JavaScript so that npm start's server process needs no TypeScript loader).
export const SESSION_COOKIE_NAMES: readonly ["better-auth.session_token", "__Secure-better-auth.session_token"];
export function isSignedSessionCookie(value: string | undefined, secret: string): boolean;
export function hasSignedSessionCookie(get: (name: string) => string | undefined, secret: string): boolean;
export function isActionPost(method: string, pathname: string, headers: { has(name: string): boolean }): boolean;
export function cookieValue(header: string | undefined, name: string): string | undefined;
