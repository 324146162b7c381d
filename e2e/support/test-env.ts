// Imported FIRST by in-process HTTP tests: gives the test file its own throwaway database (SQLite, or
// PostgreSQL when TEST_DATABASE=postgres, see test-database.ts) and known secrets before any module
// reads the settings.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { newTestDatabase } from "./test-database";

export const TEST_LAB_SECRET = "lab_test_secret_0001";
export const TEST_LAB_SECRET_NEXT = "lab_test_secret_0002";
// Production rules hold in tests too (ACREDITA_MODE unset = production): 32+ characters, no demo value.
export const TEST_API_TOKEN = "test-api-token-0123456789abcdef-123";
export const TEST_AUTH_SECRET = "test-auth-secret-0123456789abcdef-0123456789";

const folder = mkdtempSync(path.join(tmpdir(), "acredita-test-"));
/** This test file's database: its URL, and its file on SQLite. */
export const TEST_DB = newTestDatabase("test");
/** The SQLite file (undefined on PostgreSQL). */
export const TEST_DB_FILE = TEST_DB.file;

process.env.DATABASE_URL = TEST_DB.url;
process.env.LAB_WEBHOOK_SECRET ??= `${TEST_LAB_SECRET},${TEST_LAB_SECRET_NEXT}`;
process.env.API_TOKEN = TEST_API_TOKEN;
process.env.AUTH_SECRET ??= TEST_AUTH_SECRET;
delete process.env.ACREDITA_MODE;
// Every log line goes to a file the tests can read (and grep for secrets).
process.env.LOG_FILE = path.join(folder, "acredita.log");
process.env.LOG_LEVEL = "info";
