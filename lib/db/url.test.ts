import assert from "node:assert/strict";
import { test } from "node:test";
import { describeDatabaseUrl } from "@/lib/db/url";

test("a SQLite URL is printed as it is; a PostgreSQL URL without its password or query; junk as (set)", () => {
  assert.equal(describeDatabaseUrl("file:./data/acredita.db"), "file:./data/acredita.db");
  assert.equal(describeDatabaseUrl("postgresql://acredita:s3cret%21@db.internal:5433/acredita?sslmode=require&password=other"), "postgresql://acredita:***@db.internal:5433/acredita");
  assert.equal(describeDatabaseUrl("postgres://acredita@localhost/acredita"), "postgres://acredita@localhost/acredita");
  assert.equal(describeDatabaseUrl("postgresql://user:pa ss@[bad"), "(set)");
});
