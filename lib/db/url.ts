/** Default embedded database: a SQLite file under data/ (ignored by git), relative to the working directory. */
export const DEFAULT_DATABASE_URL = "file:./data/acredita.db";

/** True when the URL selects PostgreSQL (postgres:// or postgresql://). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * The file path that better-sqlite3 opens for a `file:` URL (or a bare path).
 * `file:` URLs resolve against the process's working directory (STACK.md).
 */
export function sqliteFilePath(url: string): string {
  return url.replace(/^file:/, "");
}

/**
 * The database URL as safe to print: a SQLite `file:` URL as it is (a path holds no secret); a
 * PostgreSQL URL with its password replaced by `***` (user, host, port and database kept, query dropped:
 * it may carry `password=`); "(set)" when it cannot be parsed, so nothing secret leaks by accident.
 */
export function describeDatabaseUrl(url: string): string {
  if (!isPostgresUrl(url)) return url;
  try {
    const parsed = new URL(url);
    const user = parsed.username ? `${decodeURIComponent(parsed.username)}${parsed.password ? ":***" : ""}@` : "";
    return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}`;
  } catch {
    return "(set)";
  }
}
