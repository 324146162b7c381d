// npm run lint:arch: checks the import rules of .dependency-cruiser.cjs over the whole tree (lib/, app/,
// scripts/, bench/, e2e/, tests/) and exits 1 naming each violation. It calls dependency-cruiser's API,
// not its CLI: the CLI refuses to run on Node 20, which package.json's engines allow.
import { existsSync } from "node:fs";
import path from "node:path";

const REPO = path.resolve(__dirname, "..");

/** The folders and files cruised by default, relative to the base folder. */
export const ARCH_ROOTS = ["lib", "app", "scripts", "bench", "e2e", "tests", "instrumentation.ts", "instrumentation-node.ts"];

/** One forbidden import: the rule's name, the importing module and the imported one (paths relative to the base folder). */
export interface ArchViolation {
  rule: string;
  from: string;
  to: string;
  /** For a circular dependency: the modules of the cycle, starting after `from`. */
  cycle?: string[];
}

/**
 * Cruises `roots` under `baseDir` with the repository's .dependency-cruiser.cjs, resolving `@/` through
 * `baseDir`/tsconfig.json. Takes the base folder (default: the repository) and the roots (default
 * ARCH_ROOTS, those that exist); returns every violation, dependency-cruiser's "err" report and how many
 * modules were cruised. Throws when the configuration is invalid or a root cannot be read.
 */
export async function checkArchitecture({ baseDir = REPO, roots = ARCH_ROOTS }: { baseDir?: string; roots?: string[] } = {}): Promise<{ violations: ArchViolation[]; report: string; modules: number }> {
  // dependency-cruiser is ESM only: imported dynamically from this CommonJS-compiled script.
  const { cruise, format } = await import("dependency-cruiser");
  const { default: extractDepcruiseOptions } = await import("dependency-cruiser/config-utl/extract-depcruise-options");
  const { default: extractTSConfig } = await import("dependency-cruiser/config-utl/extract-ts-config");
  const options = await extractDepcruiseOptions(path.join(REPO, ".dependency-cruiser.cjs"));
  const tsConfigFile = path.join(baseDir, "tsconfig.json");
  const present = roots.filter((root) => existsSync(path.join(baseDir, root)));
  const previous = process.cwd();
  // Paths in the rules are relative to the folder cruised from.
  process.chdir(baseDir);
  try {
    const cruised = await cruise(present, { ...options, baseDir, tsConfig: { fileName: tsConfigFile } }, {}, { tsConfig: extractTSConfig(tsConfigFile) });
    if (typeof cruised.output === "string") throw new Error("dependency-cruiser returned a report instead of a result");
    const result = cruised.output;
    const violations: ArchViolation[] = result.summary.violations.map((violation) => ({
      rule: violation.rule.name,
      from: violation.from,
      to: violation.to,
      ...(violation.cycle ? { cycle: violation.cycle.map((step) => step.name) } : {}),
    }));
    const report = await format(result, { outputType: "err" });
    return { violations, report: String(report.output), modules: result.summary.totalCruised };
  } finally {
    process.chdir(previous);
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const { violations, report, modules } = await checkArchitecture();
  if (violations.length > 0) {
    process.stdout.write(report);
    process.exitCode = 1;
    return;
  }
  console.log(`lint:arch: ${modules} modules, no forbidden import (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(2);
  });
}
