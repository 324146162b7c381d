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
