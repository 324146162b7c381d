import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { freePort } from "@/lib/net/free-port";
import { STOP_GRACE_MS } from "./real-server";
import { newTestDatabase } from "./test-database";

/** A fresh, migrated database of the kind under test (SQLite file or PostgreSQL database); returns its URL. */
export function freshDatabaseUrl(): string {
  return newTestDatabase("server").url;
}

/** The AUTH_SECRET a test server gets unless the test or its environment sets one (32+ characters, not a demo value). */
export const SERVER_AUTH_SECRET = "test-server-auth-secret-0123456789abcdef";

export interface RunningServer {
  url: string;
  port: number;
  process: ChildProcess;
  output: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<void>;
}

/**
 * Starts the BUILT app (`next start`, one PID) on a free port with `env` added (its own DATABASE_URL
 * unless given) and waits until it answers. Needs `next build` first (npm test builds before testing).
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  if (!existsSync(".next/BUILD_ID")) throw new Error("no production build: run `npm run build` first");
  const port = await freePort();
  const child = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"], {
    // A production server (ACREDITA_MODE unset) refuses to start without its own AUTH_SECRET.
    env: { AUTH_SECRET: SERVER_AUTH_SECRET, ...process.env, DATABASE_URL: env.DATABASE_URL ?? freshDatabaseUrl(), LOG_LEVEL: "warn", NEXT_TELEMETRY_DISABLED: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early: ${output}`);
    const ok = await fetch(`${url}/api/health`).then((response) => response.status < 500, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server not ready in 30 s: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    port,
    process: child,
    output: () => output,
    // A server killed by a signal has a signalCode and no exitCode: either means it is gone. One still
    // running STOP_GRACE_MS after a gentler signal is killed, and the stop fails naming it.
    stop: (signal: NodeJS.Signals = "SIGTERM") =>
      new Promise<void>((resolve, reject) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const late =
          signal === "SIGKILL"
            ? undefined
            : setTimeout(() => {
                child.kill("SIGKILL");
                reject(new Error(`the server did not exit within ${STOP_GRACE_MS / 1000} s of ${signal}; killed. Its output:\n${output.slice(-4_000)}`));
              }, STOP_GRACE_MS);
        child.once("exit", () => {
          clearTimeout(late);
          resolve();
        });
        child.kill(signal);
      }),
  };
}
