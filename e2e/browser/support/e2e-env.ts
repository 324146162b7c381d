// The browser tests' environment: a free port and a fresh temporary database folder, chosen ONCE in the
// Playwright runner process (which loads the config first) and inherited by its workers through the env.
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

process.env.E2E_PORT ??= execFileSync(process.execPath, ["-e", 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{process.stdout.write(String(s.address().port));s.close()})']).toString();
process.env.E2E_DB_DIR ??= mkdtempSync(path.join(tmpdir(), "acredita-e2e-"));

export const E2E = {
  port: Number(process.env.E2E_PORT),
  baseURL: `http://127.0.0.1:${process.env.E2E_PORT}`,
  databaseFile: path.join(process.env.E2E_DB_DIR, "acredita.db"),
  apiToken: "e2e-api-token-0001",
  labSecret: "lab_e2e_secret_0001",
} as const;

/**
 * Refuses to run against anything but the local throwaway server: the base URL must be 127.0.0.1 or
 * localhost and the database a file under the OS temp folder (dub's assert-local-database idea).
 */
export function assertLocalTarget(baseURL: string = E2E.baseURL, databaseFile: string = E2E.databaseFile): void {
  const host = new URL(baseURL).hostname;
  if (host !== "127.0.0.1" && host !== "localhost") throw new Error(`refusing to run browser tests against ${host}: local servers only`);
  const temp = realpathSync(tmpdir());
  if (!path.resolve(databaseFile).startsWith(temp + path.sep)) throw new Error(`refusing to run browser tests on a database outside ${temp}`);
}
