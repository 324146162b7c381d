import type { Db, Tx } from "@/lib/db/client";

/** The two databases Acredita runs on. */
export type DatabaseKind = "sqlite" | "postgresql";

/**
 * Which database a client (or a transaction's client) talks to, from the provider its generated
 * client was built for (`sqlite` or `postgresql`, see lib/db/open-postgres.ts). For the few statements
 * that must differ between the two, e.g. claiming inbox work. Throws for any other provider.
 */
export function databaseKind(client: Db | Tx): DatabaseKind {
  // Prisma keeps the schema's provider on every client and transaction client; it is not in the typings.
  const provider = (client as unknown as { _activeProvider?: string })._activeProvider;
  if (provider === "sqlite" || provider === "postgresql") return provider;
  throw new Error(`unsupported database provider: ${String(provider)}`);
}
