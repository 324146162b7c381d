import { Prisma } from "@/lib/generated/prisma/client";
import { errorMessage } from "@/lib/log/error-message";

interface ConstraintCause {
  constraint?: { fields?: string[]; index?: string };
}

/**
 * Returns the column names of a unique violation (Prisma P2002), or undefined for any other error.
 * Prisma 6.19 with driver adapters has no `meta.target`: the fields sit in
 * `meta.driverAdapterError.cause.constraint.fields` (quoted on PostgreSQL), see ../shared/STACK.md.
 */
export function uniqueViolationFields(error: unknown): string[] | undefined {
  const driverFields = driverUniqueViolationFields(error);
  if (driverFields) return driverFields;
  if (!(error instanceof Prisma.PrismaClientKnownRequestError) || error.code !== "P2002") return undefined;
  const meta = error.meta as { target?: unknown; driverAdapterError?: { cause?: ConstraintCause } } | undefined;
  const fields = meta?.driverAdapterError?.cause?.constraint?.fields ?? (Array.isArray(meta?.target) ? (meta.target as string[]) : []);
  return fields.map((field) => field.replace(/^"|"$/g, ""));
}

/**
 * The columns of a unique violation raised by a driver itself (lib/db/driver.ts), not through Prisma:
 * better-sqlite3 `SQLITE_CONSTRAINT_UNIQUE` ("UNIQUE constraint failed: Table.a, Table.b") and pg
 * SQLSTATE 23505 (detail `Key ("a", "b")=(...) already exists.`). Undefined for any other error.
 */
function driverUniqueViolationFields(error: unknown): string[] | undefined {
  const failure = error as { code?: unknown; message?: unknown; detail?: unknown } | undefined;
  if (failure?.code === "SQLITE_CONSTRAINT_UNIQUE" || failure?.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
    const columns = /constraint failed: (.*)$/.exec(String(failure.message))?.[1] ?? "";
    return columns.split(", ").map((column) => column.slice(column.indexOf(".") + 1));
  }
  if (failure?.code === "23505") {
    const columns = /Key \((.*?)\)=/.exec(String(failure.detail ?? ""))?.[1] ?? "";
    return columns.split(", ").map((column) => column.replace(/^"|"$/g, ""));
  }
  return undefined;
}

/**
 * True when the database gave up on time: PostgreSQL cancelled a statement (`statement_timeout`,
 * SQLSTATE 57014), Prisma expired an interactive transaction (P2028, DATABASE_TRANSACTION_TIMEOUT_MS), or
 * no connection or transaction slot came free in time (DATABASE_POOL_TIMEOUT_MS). The transaction was
 * rolled back. Not retried inside the request: a database this slow is overloaded or blocked, and the
 * provider's own retry after a 503 comes later, when it may have recovered.
 */
export function isTimeoutDbError(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2024") return true;
  const cause = (error as { cause?: { originalCode?: string; code?: string } } | undefined)?.cause;
  if (cause?.originalCode === "57014" || cause?.code === "57014") return true;
  const text = errorMessage(error);
  return /statement timeout|expired transaction|Unable to start a transaction in the given time|timeout exceeded when trying to connect/i.test(text);
}

/**
 * True for errors a retry may cure: SQLite busy/locked (P1008, SQLITE_BUSY*), PostgreSQL serialization
 * failures and deadlocks. Timeouts ({@link isTimeoutDbError}) are not transient.
 */
export function isTransientDbError(error: unknown): boolean {
  if (isTimeoutDbError(error)) return false;
  if (error instanceof Prisma.PrismaClientKnownRequestError && ["P1008", "P2034", "P1017"].includes(error.code)) return true;
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /SQLITE_BUSY|SQLITE_LOCKED|database is locked|could not serialize|deadlock detected|Transaction already closed|Unable to start a transaction/i.test(text);
}
