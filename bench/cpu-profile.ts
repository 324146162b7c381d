import { readFileSync } from "node:fs";

/** The parts of a V8 `.cpuprofile` (written by `node --cpu-prof`) that the summary reads. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where CPU time went, by what the code is (self time: the frame on top of the stack). */
export interface ProfileSummary {
  /** Wall time the profile covers, ms. */
  totalMs: number;
  /** Sampled time that was not idle, ms. */
  busyMs: number;
  /** Self time per category, ms, busiest first. */
  categories: { category: string; ms: number; share: number }[];
  /** The busiest functions by self time. */
  functions: { name: string; where: string; ms: number; share: number }[];
  /** Inclusive time of a few well-known entry points (ms): what a whole step costs, its callees included. */
  inclusive: { step: string; ms: number; share: number }[];
}

/** Assigns a frame to a coarse category by its script URL (bundled app code lands in .next chunks). */
function categoryOf(url: string, name: string): string {
  if (name === "(idle)") return "idle";
  if (name === "(garbage collector)") return "garbage collection";
  if (name === "(program)") return "V8/native (program)";
  if (url.startsWith("wasm://") || /query_compiler|\.wasm/.test(url)) return "Prisma query compiler (WebAssembly)";
  if (/@prisma|prisma\/client|\/runtime\/client|generated\/prisma/.test(url)) return "Prisma client runtime";
  // The production build bundles @prisma/adapter-better-sqlite3 into .next chunks: its two functions that
  // run statements (and wait for the commit's fsync) are recognised by name.
  if (/adapter-better-sqlite3|better-sqlite3/.test(url) || name === "executeIO" || name === "performIO") return "SQLite: better-sqlite3 + Prisma adapter (statements, commit fsync)";
  if (/pino|sonic-boom|thread-stream/.test(url)) return "pino logging";
  if (/zod/.test(url)) return "zod";
  if (/next\/dist|\.next\/server\/chunks\/.*next|node_modules\/next/.test(url)) return "Next.js server";
  if (/\.next\/server/.test(url)) return "Acredita (bundled app code)";
  if (/\/node_modules\/tsx\//.test(url)) return "tsx loader";
  if (/\/lib\//.test(url) && !/node_modules/.test(url)) return "Acredita (lib/)";
  if (url.startsWith("node:") || url === "") return "Node.js core / native";
  return "other";
}

/** Entry points whose inclusive time says how much a whole step costs. Matched on the function name. */
const STEPS: { step: string; test: (name: string, url: string) => boolean }[] = [
  { step: "Prisma query compilation (compileQuery/wasm)", test: (name, url) => url.startsWith("wasm://") || /compile/i.test(name) && /prisma|\.next\/server/.test(url) },
  { step: "SQLite statements and commits (adapter executeIO/performIO)", test: (name) => name === "executeIO" || name === "performIO" },
  { step: "JSON logging (pino write)", test: (name, url) => /pino|sonic-boom/.test(url) && /write|asJson/i.test(name) },
  { step: "driver statements (lib/db/driver.ts: better-sqlite3 or pg)", test: (name, url) => /\/lib\/db\/driver\.ts/.test(url) && /^(all|run|query)$/.test(name) },
];

/**
 * Summarises a `.cpuprofile`: self time by category and by function (top `top`), and inclusive time of
 * a few steps. Sample durations come from `timeDeltas` (µs). Returns times in ms.
 */
export function summarizeCpuProfile(file: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));

  const categories = new Map<string, number>();
  const functions = new Map<string, { name: string; where: string; us: number }>();
  const inclusive = new Map<string, number>();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const name = functionName || "(anonymous)";
    const category = categoryOf(url, name);
    categories.set(category, (categories.get(category) ?? 0) + us);
    if (category === "idle") continue;
    busyUs += us;
    const where = `${url.replace(/^.*\/(node_modules|\.next)\//, "$1/")}:${lineNumber + 1}`;
    const key = `${name}@${where}`;
    const entry = functions.get(key) ?? { name, where, us: 0 };
    entry.us += us;
    functions.set(key, entry);
    // Inclusive: charge this sample to each step found on its stack, once per step.
    const seen = new Set<string>();
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const frame = byId.get(cursor)!.callFrame;
      for (const step of STEPS) if (!seen.has(step.step) && step.test(frame.functionName, frame.url)) seen.add(step.step);
    }
    for (const step of seen) inclusive.set(step, (inclusive.get(step) ?? 0) + us);
  }
  const ms = (us: number) => Math.round(us / 100) / 10;
  const share = (us: number) => Math.round((us / busyUs) * 1000) / 1000;
  return {
    totalMs: ms(profile.endTime - profile.startTime),
    busyMs: ms(busyUs),
    categories: [...categories].filter(([name]) => name !== "idle").sort((a, b) => b[1] - a[1]).map(([category, us]) => ({ category, ms: ms(us), share: share(us) })),
    functions: [...functions.values()].sort((a, b) => b.us - a.us).slice(0, top).map((f) => ({ name: f.name, where: f.where, ms: ms(f.us), share: share(f.us) })),
    inclusive: STEPS.map(({ step }) => ({ step, ms: ms(inclusive.get(step) ?? 0), share: share(inclusive.get(step) ?? 0) })),
  };
}
