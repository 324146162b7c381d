import { execFileSync } from "node:child_process";
import os from "node:os";

/** The machine a benchmark ran on, for the tables of docs/benchmarks.md. */
export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGb: number;
  os: string;
  node: string;
  /** 1/5/15-minute load averages when the benchmark started: other work on a shared machine shows here. */
  loadAtStart: number[];
  /** Filesystem of the temporary folder (where the benchmark databases live). */
  tmpFilesystem: string;
}

/** Describes this machine. */
export function machineInfo(): MachineInfo {
  let tmpFilesystem = "unknown";
  try {
    tmpFilesystem = execFileSync("df", ["-T", os.tmpdir()], { encoding: "utf8" }).trim().split("\n")[1]?.split(/\s+/)[1] ?? "unknown";
  } catch {
    // df is informative only.
  }
  return {
    cpu: os.cpus()[0]?.model ?? "unknown",
    cores: os.availableParallelism(),
    memoryGb: Math.round(os.totalmem() / 1024 ** 3),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    loadAtStart: os.loadavg().map((load) => Math.round(load * 100) / 100),
    tmpFilesystem,
  };
}

/** The median of numbers (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
