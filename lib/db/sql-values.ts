/** A boolean column as read by the driver: SQLite stores 0/1 (as Prisma writes it), PostgreSQL a boolean. */
export function sqliteBoolean(value: boolean | number | bigint): boolean {
  return typeof value === "boolean" ? value : Number(value) !== 0;
}

/** A DateTime column as read by the driver: SQLite stores the model API's ISO text, PostgreSQL a timestamp. */
export function sqlDate(value: Date | string | null): Date | null {
  if (value === null) return null;
  return value instanceof Date ? value : new Date(value);
}
