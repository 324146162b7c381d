/**
 * The default organization, created by the migration that introduced organizations (both databases):
 * it owns the environment-configured endpoints and everything a single-merchant deployment has, and
 * every user who existed before memberships is a member of it (docs/organizations.md). A module of its
 * own, without imports, so that code loaded outside the server (the browser tests' helpers, the
 * providers' parsing) can name it without loading a database client.
 */
export const DEFAULT_ORGANIZATION = { id: "org_default", slug: "default" } as const;
