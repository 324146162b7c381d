import { Prisma } from "@/lib/generated/prisma/client";

interface ConstraintCause {
  constraint?: { fields?: string[]; index?: string };
}

/**
 * Returns the column names of a unique violation (Prisma P2002), or undefined for any other error.
 * Prisma 6.19 with driver adapters has no `meta.target`: the fields sit in
 * `meta.driverAdapterError.cause.constraint.fields` (quoted on PostgreSQL), see ../shared/STACK.md.
 */
export function uniqueViolationFields(error: unknown): string[] | undefined {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError) || error.code !== "P2002") return undefined;
  const meta = error.meta as { target?: unknown; driverAdapterError?: { cause?: ConstraintCause } } | undefined;
  const fields = meta?.driverAdapterError?.cause?.constraint?.fields ?? (Array.isArray(meta?.target) ? (meta.target as string[]) : []);
  return fields.map((field) => field.replace(/^"|"$/g, ""));
}

/** True for errors a retry may cure: SQLite busy/locked (P1008, SQLITE_BUSY*), PostgreSQL serialization and deadlocks. */
export function isTransientDbError(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError && ["P1008", "P2034", "P1017"].includes(error.code)) return true;
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /SQLITE_BUSY|SQLITE_LOCKED|database is locked|could not serialize|deadlock detected|Transaction already closed|Unable to start a transaction/i.test(text);
}
