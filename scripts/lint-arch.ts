// npm run lint:arch: checks the import rules of .dependency-cruiser.cjs over the whole tree (lib/, app/,
// scripts/, bench/, e2e/, tests/) and exits 1 naming each violation. It calls dependency-cruiser's API,
// not its CLI: the CLI refuses to run on Node 20, which package.json's engines allow.
import { existsSync, readFileSync } from "node:fs";
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
  const extracted = await extractDepcruiseOptions(path.join(REPO, ".dependency-cruiser.cjs"));
  // The layers and the tables' writers are ours (read below), not dependency-cruiser's.
  const { layers: _layers, moneyPathWriters: _writers, ...ruleSet } = extracted.ruleSet as typeof extracted.ruleSet & { layers?: unknown; moneyPathWriters?: unknown };
  const options = { ...extracted, ruleSet };
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
    const edges = result.modules.flatMap((module) => module.dependencies.map((dependency) => ({ from: module.source, to: dependency.resolved })));
    const ours = [...folderLoops(edges), ...secondWriters(baseDir, result.modules.map((module) => module.source))];
    const extra = ours.map((violation) => `  error ${violation.rule}: ${violation.from} → ${violation.to}${violation.cycle ? ` (loop: ${violation.cycle.join(" → ")})` : ""}\n`).join("");
    return { violations: [...violations, ...ours], report: String(report.output) + extra, modules: result.summary.totalCruised };
  } finally {
    process.chdir(previous);
  }
}

/** The architecture's own declarations in .dependency-cruiser.cjs: the layers of lib/ and each money-path table's one writer. */
const ARCHITECTURE = require(path.join(REPO, ".dependency-cruiser.cjs")) as { moneyPathWriters: Record<string, string> };

/** The folder of lib/ a module belongs to (`lib/<folder>/...`), or null outside lib/ and for tests beside the code. */
function libFolder(file: string): string | null {
  if (/\.test\.tsx?$/.test(file)) return null;
  const match = /^lib\/([^/]+)\//.exec(file);
  return match ? match[1] : null;
}

/**
 * `no-folder-loop`: folders of lib/ that reach each other through their imports (two importing each
 * other, or a longer loop), found as the strongly connected components of the folder graph (Tarjan).
 * Takes the cruised import edges (module paths relative to the base folder); returns one violation per
 * loop, from its first folder to the next, with the loop's folders in order. Tests beside the code are
 * left out: a test may drive its module from above.
 */
export function folderLoops(edges: readonly { from: string; to: string }[]): ArchViolation[] {
  const graph = new Map<string, Map<string, string>>();
  for (const { from, to } of edges) {
    const a = libFolder(from);
    const b = libFolder(to);
    if (!a || !b || a === b) continue;
    if (!graph.has(a)) graph.set(a, new Map());
    if (!graph.has(b)) graph.set(b, new Map());
    // One example import per folder pair, to name in the report.
    if (!graph.get(a)!.has(b)) graph.get(a)!.set(b, `${from} -> ${to}`);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const visit = (folder: string) => {
    index.set(folder, counter);
    low.set(folder, counter);
    counter++;
    stack.push(folder);
    onStack.add(folder);
    for (const next of [...graph.get(folder)!.keys()].sort()) {
      if (!index.has(next)) {
        visit(next);
        low.set(folder, Math.min(low.get(folder)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(folder, Math.min(low.get(folder)!, index.get(next)!));
      }
    }
    if (low.get(folder) === index.get(folder)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== folder);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const folder of [...graph.keys()].sort()) if (!index.has(folder)) visit(folder);
  return components.map((component) => {
    // A loop through the component from its first folder, for the report.
    const inside = new Set(component);
    const loop = [component[0]];
    for (let at = component[0]; ; ) {
      const next = [...graph.get(at)!.keys()].filter((folder) => inside.has(folder)).sort().find((folder) => folder === component[0] || !loop.includes(folder)) ?? component[0];
      if (next === component[0]) break;
      loop.push(next);
      at = next;
    }
    return { rule: "no-folder-loop", from: `lib/${loop[0]}`, to: `lib/${loop[1] ?? component[1]}`, cycle: [...loop, loop[0]].map((folder) => `lib/${folder}`) };
  });
}

/** SQL or Prisma model writes of `table` in a source text: INSERT INTO / UPDATE / DELETE FROM "Table", or prisma.table.create/update/upsert/delete(Many). */
function writesTable(text: string, table: string): boolean {
  const model = table[0].toLowerCase() + table.slice(1);
  const sql = new RegExp(`\\b(INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+\\\\?"${table}\\\\?"`, "i");
  const prisma = new RegExp(`\\.${model}\\s*\\.\\s*(create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany)\\s*\\(`);
  return sql.test(text) || prisma.test(text);
}

/**
 * `money-path-writers`: each money-path table (.dependency-cruiser.cjs, MONEY_PATH_WRITERS) is written
 * by its one module only. Takes the base folder and the cruised modules; reads each module of lib/, app/
 * and scripts/ (tests beside the code, tests/, e2e/ and bench/ seed tables freely) and returns one
 * violation per module that writes a table it does not own, naming the owner.
 */
export function secondWriters(baseDir: string, modules: readonly string[]): ArchViolation[] {
  const violations: ArchViolation[] = [];
  for (const file of modules) {
    if (!/^(lib|app|scripts)\//.test(file) || /\.test\.tsx?$/.test(file) || /^lib\/generated\//.test(file) || !/\.(ts|tsx|mts|cts|js|mjs)$/.test(file)) continue;
    let text: string;
    try {
      text = readFileSync(path.join(baseDir, file), "utf8");
    } catch {
      continue;
    }
    for (const [table, owner] of Object.entries(ARCHITECTURE.moneyPathWriters)) {
      if (file !== owner && writesTable(text, table)) violations.push({ rule: "money-path-writers", from: file, to: `${owner} (${table})` });
    }
  }
  return violations;
}

/** Fewer modules than this cruised from the real tree means its roots or the `@/` alias were not read. */
const MIN_MODULES = 300;

async function main(): Promise<void> {
  const started = Date.now();
  const { violations, report, modules } = await checkArchitecture();
  if (violations.length > 0) {
    process.stdout.write(report);
    process.exitCode = 1;
    return;
  }
  // A tree that cruises this few modules is not being read (the roots or the @/ alias): "no violation" would prove nothing.
  if (modules <= MIN_MODULES) {
    console.error(`lint:arch: only ${modules} modules cruised: the roots or the @/ alias are not read`);
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
