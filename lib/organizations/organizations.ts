/**
 * The default organization, created by the migration that introduced organizations (both databases):
 * it owns the environment-configured endpoints and everything a single-merchant deployment has. Until
 * memberships exist every caller acts in it.
 */
export const DEFAULT_ORGANIZATION = { id: "org_default", slug: "default" } as const;
