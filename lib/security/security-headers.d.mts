// Types for security-headers.mjs (plain JavaScript so that next.config.mjs can import it).
export function contentSecurityPolicy(options?: { dev?: boolean }): string;
export function securityHeaders(options?: { dev?: boolean }): { key: string; value: string }[];
