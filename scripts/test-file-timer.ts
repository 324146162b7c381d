// Preloaded (--import) into every node:test process by scripts/run-tests.ts: when a test FILE's process
// exits, writes how long it ran (wall time from process start, milliseconds, module loading included) to
// TEST_DURATIONS_DIR, one small JSON file per process. The runner reads them for its per-file report and
// the slow-file rule; node:test's own events carry no per-file time.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";

/**
 * CPU seconds this process used (`own`, module loading included) and its children that have ended and
 * been waited for (`children`: servers, workers, CLIs), from /proc/self/stat (Linux; clock ticks of
 * 1/100 s); {} where it cannot be read. What a file costs the machine, beside its wall time.
 */
function cpuSeconds(): { cpuOwn?: number; cpuChildren?: number } {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    // After the command name: state is field 3, utime 14, stime 15, cutime 16, cstime 17 (proc(5)).
    const tick = (index: number) => Number(fields[index - 3]) / 100;
    return { cpuOwn: tick(14) + tick(15), cpuChildren: tick(16) + tick(17) };
  } catch {
    return {};
  }
}

const folder = process.env.TEST_DURATIONS_DIR;
const file = process.argv[1];
if (folder && file && /\.test\.[cm]?[jt]s$/.test(file)) {
  process.on("exit", () => {
    try {
      writeFileSync(path.join(folder, `${process.pid}.json`), JSON.stringify({ file: path.relative(process.cwd(), file), startedAt: Math.round(performance.timeOrigin), ms: Math.round(performance.now()), ...cpuSeconds() }));
    } catch {
      // The report is best-effort: a file that cannot be written never fails the test process.
    }
  });
}
