// The architecture's import rules, checked by `npm run lint:arch` (scripts/lint-arch.ts, which runs
// dependency-cruiser's API: its CLI refuses Node 20, the project's engine). Every rule is an error.
// Paths are relative to the repository root; the `@/` alias is resolved through tsconfig.json.
// tests/unit/lint-arch.test.ts writes one violating import per rule and asserts the rule's name.

/** The pure provider modules: signature checks and payload parsing, no database. */
const PROVIDERS = "^lib/providers/";

/**
 * The layers of lib/, lowest first: a folder imports only folders of its own layer or lower ones (its
 * tests beside it excepted: a test may drive its module from above). Within a layer, and across all of
 * lib/, no two folders import each other, directly or round a loop (scripts/lint-arch.ts checks that).
 */
const LAYERS = [
  { name: "config", folders: ["config"], comment: "settings read from the environment" },
  { name: "base", folders: ["log", "format", "reasons", "i18n", "http", "money", "net", "security", "secrets", "test-hooks", "lists"], comment: "utilities every layer uses: logging, formatting, reason codes, locales, money units, paging, encryption at rest" },
  { name: "db", folders: ["db", "generated"], comment: "the database clients, the driver, migrations" },
  { name: "pure", folders: ["core", "providers"], comment: "the decisions and the providers' parsing: no database" },
  { name: "persistence", folders: ["events", "ledger", "orders", "organizations", "decisions", "dead-letters", "audit", "monitoring", "jobs"], comment: "the tables' writers and readers, the building blocks of workers" },
  { name: "pipelines", folders: ["apply", "ingest", "inbox", "outbox", "endpoints", "reconciliation", "retention", "auth", "api", "triage", "review", "health", "lab", "demo", "replay", "verification", "exports", "provider-api", "backfill", "settlement-pull", "alerts"], comment: "what a delivery, a worker, a person or the operator sets in motion" },
  { name: "processes", folders: ["background", "receiver", "server"], comment: "the background loops, the receiver process and npm start's HTTP server" },
];

/**
 * The tables the money path writes, each with the one module that writes it (SQL INSERT, UPDATE or
 * DELETE naming the table, or a Prisma model write). tests/, e2e/ and bench/ seed them freely.
 */
const MONEY_PATH_WRITERS = {
  WebhookEvent: "lib/events/webhook-events.ts",
  Decision: "lib/decisions/record-decision.ts",
  LedgerEntry: "lib/ledger/bookings.ts",
  Delivery: "lib/ledger/bookings.ts",
  ExtraCharge: "lib/ledger/bookings.ts",
  Dispute: "lib/ledger/disputes.ts",
  RefundSnapshot: "lib/ledger/refund-snapshots.ts",
  RefundObject: "lib/ledger/refund-snapshots.ts",
  DeadLetter: "lib/dead-letters/dead-letters.ts",
  OutboxMessage: "lib/outbox/outbox-store.ts",
  // Not money, but the same discipline: an incident opens and resolves once, from one module.
  AlertChannel: "lib/alerts/alert-store.ts",
  AlertRule: "lib/alerts/alert-store.ts",
  Incident: "lib/alerts/alert-store.ts",
};

const folderPattern = (folders) => `^lib/(${folders.join("|")})/`;

/** One rule per layer: nothing of it imports a higher layer. */
const layerRules = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `layer-${layer.name}`,
  severity: "error",
  comment: `lib/ layer "${layer.name}" (${layer.comment}) imports no higher layer: ${LAYERS.slice(index + 1).map((higher) => higher.name).join(", ")}.`,
  from: { path: folderPattern(layer.folders), pathNot: "\\.test\\.tsx?$" },
  to: { path: folderPattern(LAYERS.slice(index + 1).flatMap((higher) => higher.folders)) },
}));

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
      name: "core-not-to-database",
      severity: "error",
      comment: "The core decides from facts it is given: it never touches the database (lib/db, the generated Prisma clients, the drivers).",
      from: { path: "^lib/core/" },
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
    ...layerRules,
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

// Read by scripts/lint-arch.ts (dependency-cruiser ignores them): the folder-loop and single-writer checks.
module.exports.layers = LAYERS;
module.exports.moneyPathWriters = MONEY_PATH_WRITERS;
