// Preloaded (--import) into every node:test process by scripts/run-tests.ts: when a test FILE's process
// exits, writes how long it ran (wall time from process start, milliseconds, module loading included) to
// TEST_DURATIONS_DIR, one small JSON file per process. The runner reads them for its per-file report and
// the slow-file rule; node:test's own events carry no per-file time.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";

const folder = process.env.TEST_DURATIONS_DIR;
const file = process.argv[1];
if (folder && file && /\.test\.[cm]?[jt]s$/.test(file)) {
  process.on("exit", () => {
    try {
      writeFileSync(path.join(folder, `${process.pid}.json`), JSON.stringify({ file: path.relative(process.cwd(), file), ms: Math.round(performance.now()) }));
    } catch {
      // The report is best-effort: a file that cannot be written never fails the test process.
    }
  });
}
