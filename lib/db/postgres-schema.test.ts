import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { freshPostgresSchema, POSTGRES_SCHEMA_PATH, postgresSchemaFrom } from "@/lib/db/postgres-schema";

test("the committed PostgreSQL schema is exactly what `npm run db:schema` generates from prisma/schema.prisma", () => {
  assert.equal(readFileSync(POSTGRES_SCHEMA_PATH, "utf8"), freshPostgresSchema(), "run `npm run db:schema` and commit prisma/postgresql/schema.prisma");
});

test("the generated schema keeps every model and changes only the provider, the url and the client's folder", () => {
  const sqlite = readFileSync("prisma/schema.prisma", "utf8");
  const generated = freshPostgresSchema();
  const models = (text: string) => [...text.matchAll(/^model (\w+) \{/gm)].map((match) => match[1]);
  assert.deepEqual(models(generated), models(sqlite));
  assert.ok(models(sqlite).length >= 10);
  assert.match(generated, /provider = "postgresql"/);
  assert.match(generated, /output\s+= "\.\.\/\.\.\/lib\/generated\/prisma-postgres"/);
  const body = (text: string) => text.slice(text.indexOf("\nmodel "));
  assert.equal(body(generated), body(sqlite).replace(/^(\s*)\/\/ postgresql: /gm, "$1"));
});

test("a `// postgresql:` line is a comment for SQLite and an attribute for PostgreSQL (the order id's trigram index)", () => {
  const sqlite = readFileSync("prisma/schema.prisma", "utf8");
  const index = '@@index([id(ops: raw("gin_trgm_ops"))], type: Gin, map: "Order_id_trgm_idx")';
  assert.ok(sqlite.includes(`  // postgresql: ${index}\n`));
  assert.ok(freshPostgresSchema().includes(`\n  ${index}\n`));
  assert.equal(postgresSchemaFrom(sqlite).split("\n").filter((line) => line.includes("// postgresql:")).length, 0);
});

test("a SQLite schema whose datasource changed shape is refused, not half-converted", () => {
  const sqlite = readFileSync("prisma/schema.prisma", "utf8");
  assert.throws(() => postgresSchemaFrom(sqlite.replace('provider = "sqlite"', 'provider = "mysql"')), /expected exactly one datasource provider "sqlite", found 0/);
  assert.throws(() => postgresSchemaFrom(sqlite.replace('output     = "../lib/generated/prisma"', 'output = "../elsewhere"')), /generator output/);
});

test("every SQLite migration has a PostgreSQL migration of the same name, and no other", () => {
  const names = (folder: string) => readdirSync(folder).filter((entry) => /^\d/.test(entry)).sort();
  assert.deepEqual(names("prisma/postgresql/migrations"), names("prisma/migrations"));
  assert.ok(names("prisma/migrations").length >= 3);
});
