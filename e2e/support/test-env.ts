// Imported FIRST by in-process HTTP tests: gives the test file its own throwaway SQLite database and
// known secrets before any module reads the settings.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { applySqliteMigrations } from "@/lib/db/apply-migrations";

export const TEST_LAB_SECRET = "lab_test_secret_0001";
export const TEST_LAB_SECRET_NEXT = "lab_test_secret_0002";
export const TEST_API_TOKEN = "test-api-token-123";

const folder = mkdtempSync(path.join(tmpdir(), "acredita-test-"));
export const TEST_DB_FILE = path.join(folder, "test.db");
applySqliteMigrations(TEST_DB_FILE);

process.env.DATABASE_URL = `file:${TEST_DB_FILE}`;
process.env.LAB_WEBHOOK_SECRET ??= `${TEST_LAB_SECRET},${TEST_LAB_SECRET_NEXT}`;
process.env.API_TOKEN = TEST_API_TOKEN;
// Every log line goes to a file the tests can read (and grep for secrets).
process.env.LOG_FILE = path.join(folder, "acredita.log");
process.env.LOG_LEVEL = "info";
