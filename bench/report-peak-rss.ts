// Preloaded (`node --import`) into a command under measurement: when it exits, writes its peak resident
// set size (MB) and CPU seconds to the file named by BENCH_RSS_FILE.
import { writeFileSync } from "node:fs";

const target = process.env.BENCH_RSS_FILE;
if (target) {
  process.on("exit", () => {
    const usage = process.resourceUsage();
    writeFileSync(target, JSON.stringify({ peakRssMb: Math.round(usage.maxRSS / 1024), cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6 }));
  });
}
