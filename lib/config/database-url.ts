/** Default embedded database: a SQLite file under data/ (ignored by git), relative to the working directory. */
export const DEFAULT_DATABASE_URL = "file:./data/acredita.db";
