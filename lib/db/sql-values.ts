/** A boolean column as read by the driver: SQLite stores 0/1 (as Prisma writes it), PostgreSQL a boolean. */
export function sqliteBoolean(value: boolean | number | bigint): boolean {
  return typeof value === "boolean" ? value : Number(value) !== 0;
}

/**
 * A DateTime column as read by the driver: a Date (PostgreSQL, parsed as UTC by lib/db/driver.ts), or
 * what SQLite holds: the model API's ISO text with its offset, epoch milliseconds, or SQLite's own
 * `CURRENT_TIMESTAMP` text ("YYYY-MM-DD HH:MM:SS", UTC without a designator, which `new Date` would
 * otherwise read as local time). Returns null for null.
 */
export function sqlDate(value: Date | string | number | null): Date | null {
  if (value === null) return null;
  if (value instanceof Date) return value;
  if (typeof value === "number") return new Date(value);
  return new Date(/^\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(value) ? `${value.replace(" ", "T")}Z` : value);
}

/** A stored time as unix seconds (a DateTime column as {@link sqlDate} reads it), or null when there is none. */
export function sqlUnixSeconds(value: Date | string | number | null): number | null {
  const date = sqlDate(value);
  return date === null || Number.isNaN(date.getTime()) ? null : Math.floor(date.getTime() / 1000);
}

/** Unix seconds as the Date a DateTime column takes, or null. */
export function dateOfUnixSeconds(seconds: number | null | undefined): Date | null {
  return seconds === null || seconds === undefined ? null : new Date(seconds * 1000);
}
