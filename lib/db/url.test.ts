import assert from "node:assert/strict";
import { test } from "node:test";
import { describeDatabaseUrl } from "@/lib/db/url";

test("a SQLite URL is printed as it is; a PostgreSQL URL without its password, query or fragment", () => {
  assert.equal(describeDatabaseUrl("file:./data/acredita.db"), "file:./data/acredita.db");
  assert.equal(describeDatabaseUrl("postgresql://acredita:s3cret%21@db.internal:5433/acredita?sslmode=require&password=other"), "postgresql://acredita:***@db.internal:5433/acredita");
  assert.equal(describeDatabaseUrl("postgres://acredita@localhost/acredita"), "postgres://acredita@localhost/acredita");
  assert.equal(describeDatabaseUrl("postgresql://localhost/acredita#password=x"), "postgresql://localhost/acredita");
  assert.equal(describeDatabaseUrl("postgresql://app:p@ss:w@rd@db:5432/acredita"), "postgresql://app:***@db:5432/acredita");
});

test("a password the URL grammar cannot split safely is never printed, not even in part: (set)", () => {
  for (const url of [
    "postgresql://app:2024/Xk9@db:5432/acredita", // looks like host app, port 2024 to a URL parser
    "postgresql://app:12?34@db/x",
    "postgresql://app:ab#cd@db/x",
    "postgresql://app@db/acredita?password=x@y", // an @ in the query
  ]) {
    const shown = describeDatabaseUrl(url);
    assert.equal(shown, "(set)", url);
  }
});
