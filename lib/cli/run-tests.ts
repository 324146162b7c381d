// npm test: builds the production app, runs every node:test file (lib/**, e2e/api/**), then the
// Playwright specs in real Chromium. Exits non-zero when any stage fails.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

function findTests(folder: string, pattern: RegExp): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder).flatMap((entry) => {
    const full = path.join(folder, entry);
    if (entry === "node_modules" || entry === "generated") return [];
    if (statSync(full).isDirectory()) return findTests(full, pattern);
    return pattern.test(entry) ? [full] : [];
  });
}

function run(label: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  console.log(`\n== ${label}: ${command} ${args.length > 6 ? `${args.slice(0, 6).join(" ")} …` : args.join(" ")}`);
  const result = spawnSync(command, args, { stdio: "inherit", env });
  if (result.status !== 0) {
    console.error(`\n${label} failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
}

const only = process.argv[2];
const nodeTests = [...findTests("lib", /\.test\.ts$/), ...findTests("e2e/api", /\.test\.ts$/)].sort();

if (!only || only === "build") run("build", process.execPath, ["node_modules/next/dist/bin/next", "build"]);
if (!only || only === "unit") {
  run("node tests", process.execPath, ["--import", "tsx", "--test", "--test-concurrency=2", "--test-reporter=spec", ...nodeTests], { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" });
}
if ((!only || only === "browser") && findTests("e2e/browser", /\.spec\.ts$/).length > 0) {
  run("browser tests", process.execPath, ["node_modules/@playwright/test/cli.js", "test"]);
}
