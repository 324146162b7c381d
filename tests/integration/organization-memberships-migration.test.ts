// The migration that brings memberships and organization-scoped API keys, run on a database holding
// users and keys as the previous version wrote them: every user becomes a member of the default
// organization with the role they had (an unknown hand-edited role is carried over, and still grants
// nothing), and every key belongs to the default organization, keeps its owner and takes its owner's role.
import assert from "node:assert/strict";
import { test } from "node:test";
import Database from "better-sqlite3";
import { Client } from "pg";
import { withDatabaseMigratedFrom } from "@/e2e/support/database-before-migration";

const MIGRATION = "20261202211154_organization_memberships";

const OLD_ROWS = [
  `INSERT INTO "User" ("id", "name", "email", "emailVerified", "role", "createdAt", "updatedAt") VALUES ('u_admin', 'Ana', 'ana@shop.test', true, 'admin', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
  `INSERT INTO "User" ("id", "name", "email", "emailVerified", "role", "createdAt", "updatedAt") VALUES ('u_support', 'Sol', 'sol@shop.test', true, 'support', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
  `INSERT INTO "User" ("id", "name", "email", "emailVerified", "role", "createdAt", "updatedAt") VALUES ('u_merchant', 'Max', 'max@shop.test', true, 'merchant', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
  `INSERT INTO "User" ("id", "name", "email", "emailVerified", "role", "createdAt", "updatedAt") VALUES ('u_odd', 'Odd', 'odd@shop.test', true, 'owner', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
  `INSERT INTO "ApiKey" ("id", "name", "start", "keyHash", "userId", "createdById", "createdAt", "expiresAt") VALUES ('k_1', 'backend', 'acr_AAAAAA', 'hash_1', 'u_admin', 'u_admin', CURRENT_TIMESTAMP, NULL)`,
  `INSERT INTO "ApiKey" ("id", "name", "start", "keyHash", "userId", "createdById", "createdAt", "revokedAt") VALUES ('k_2', 'reports', 'acr_BBBBBB', 'hash_2', 'u_merchant', 'u_admin', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
];

const MEMBERSHIPS = `SELECT "userId", "organizationId", "role" FROM "Membership" ORDER BY "userId"`;
const KEYS = `SELECT "id", "userId", "organizationId", "role", "keyHash", ("revokedAt" IS NOT NULL) AS "revoked" FROM "ApiKey" ORDER BY "id"`;

const EXPECTED = {
  memberships: [
    { userId: "u_admin", organizationId: "org_default", role: "admin" },
    { userId: "u_merchant", organizationId: "org_default", role: "merchant" },
    { userId: "u_odd", organizationId: "org_default", role: "owner" },
    { userId: "u_support", organizationId: "org_default", role: "support" },
  ],
  keys: [
    { id: "k_1", userId: "u_admin", organizationId: "org_default", role: null, keyHash: "hash_1", revoked: false },
    { id: "k_2", userId: "u_merchant", organizationId: "org_default", role: null, keyHash: "hash_2", revoked: true },
  ],
};

test("existing users become members of the default organization with their role, and existing keys its keys, on the database under test", async () => {
  await withDatabaseMigratedFrom(MIGRATION, OLD_ROWS, async (migrated) => {
    if (migrated.kind === "sqlite") {
      const read = (sql: string) => (migrated.database as Database.Database).prepare(sql).all() as Record<string, unknown>[];
      const keys = read(KEYS).map((row) => ({ ...row, revoked: row.revoked === 1 }));
      assert.deepEqual({ memberships: read(MEMBERSHIPS), keys }, EXPECTED);
      // A membership's time is written as Prisma writes times on SQLite (ISO 8601, UTC), so Prisma reads it back.
      const times = read(`SELECT "createdAt" FROM "Membership"`).map((row) => String(row.createdAt));
      assert.ok(times.every((time) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/.test(time)), times.join(", "));
      return;
    }
    const client = new Client({ connectionString: migrated.url });
    await client.connect();
    try {
      assert.deepEqual({ memberships: (await client.query(MEMBERSHIPS)).rows, keys: (await client.query(KEYS)).rows }, EXPECTED);
      // The default that filled the old keys is dropped: a new key must name its organization.
      const column = await client.query(`SELECT column_default FROM information_schema.columns WHERE table_name = 'ApiKey' AND column_name = 'organizationId'`);
      assert.deepEqual(column.rows, [{ column_default: null }]);
    } finally {
      await client.end();
    }
  });
});
