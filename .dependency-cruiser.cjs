// The architecture's import rules, checked by `npm run lint:arch` (scripts/lint-arch.ts, which runs
// dependency-cruiser's API: its CLI refuses Node 20, the project's engine). Every rule is an error.
// Paths are relative to the repository root; the `@/` alias is resolved through tsconfig.json.
// tests/integration/lint-arch.test.ts writes one violating import per rule and asserts the rule's name.

/** The pure provider modules: signature checks and payload parsing, no database. */
const PROVIDERS = "^lib/providers/";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "lib-not-to-app",
      severity: "error",
      comment: "lib/ is the domain; the Next.js app (app/) depends on it, never the other way round.",
      from: { path: "^lib/" },
      to: { path: "^app/" },
    },
    {
      name: "lib-not-to-tooling",
      severity: "error",
      comment: "lib/ never imports the CLIs (scripts/), the benchmarks (bench/) or the tests (e2e/, tests/).",
      from: { path: "^lib/" },
      to: { path: "^(scripts|bench|e2e|tests)/" },
    },
    {
      name: "providers-not-to-database",
      severity: "error",
      comment: "A provider verifies bytes and parses a payload: it never touches the database (lib/db, the generated Prisma clients, the drivers).",
      from: { path: PROVIDERS },
      to: { path: ["^lib/(db|generated)/", "(^|/)node_modules/(@prisma/[^/]+|better-sqlite3|pg)/"] },
    },
    {
      name: "core-not-to-providers",
      severity: "error",
      comment: "The core applies normalized events; it never imports a provider module.",
      from: { path: "^lib/core/" },
      to: { path: PROVIDERS },
    },
    {
      name: "no-flawed-receivers",
      severity: "error",
      comment: "The lab's deliberately flawed receivers exist to be attacked by the lab CLI (scripts/lab.ts) and its tests; nothing else may use them.",
      from: { pathNot: ["^scripts/lab\\.ts$", "^lib/lab/[^/]+\\.test\\.ts$", "^(tests/integration|e2e/http)/lab-[^/]+\\.test\\.ts$"] },
      to: { path: "^lib/lab/flawed-receivers\\.ts$" },
    },
    {
      name: "no-circular-in-lib",
      severity: "error",
      comment: "No module of lib/ reaches itself again through its imports (type-only imports count).",
      from: { path: "^lib/" },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: ["node_modules", "^lib/generated/"] },
    // The generated Prisma clients are modules (a provider importing one is a violation) but not read.
    exclude: { path: ["^\\.next/", "^node_modules/"] },
    // Type-only imports are dependencies of the design too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
      extensions: [".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".json", ".d.ts"],
    },
    skipAnalysisNotInRules: true,
  },
};
