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
 * PostgreSQL URL with its password replaced by `***` (user, host, port and database kept, query and
 * fragment dropped: they may carry `password=`). The credentials are everything before the LAST `@`;
 * when that part holds a `/`, `?` or `#` (an unencoded one in a password, or an `@` in the query) the
 * split is ambiguous and the answer is "(set)": nothing secret is printed by accident.
 */
export function describeDatabaseUrl(url: string): string {
  const match = /^(postgres(?:ql)?:\/\/)([\s\S]*)$/i.exec(url);
  if (!match) return url;
  const [, scheme, rest] = match;
  const at = rest.lastIndexOf("@");
  const credentials = at >= 0 ? rest.slice(0, at) : "";
  if (/[/?#]/.test(credentials)) return "(set)";
  const location = (at >= 0 ? rest.slice(at + 1) : rest).split(/[?#]/)[0];
  const colon = credentials.indexOf(":");
  const user = at >= 0 ? `${colon >= 0 ? `${credentials.slice(0, colon)}:***` : credentials}@` : "";
  return `${scheme}${user}${location}`;
}
