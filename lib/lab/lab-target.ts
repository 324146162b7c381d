import path from "node:path";
import type { RunMode } from "@/lib/config/settings";
import { DEFAULT_DATABASE_URL } from "@/lib/config/database-url";
import { isPostgresUrl, sqliteFilePath } from "@/lib/db/url";
import { ENGLISH_CLI, type CliReasons } from "@/lib/reasons/cli-reasons";

/** The port `npm start`, `npm run demo` and the lab use when PORT is unset (lib/config/settings.ts). */
const DEFAULT_PORT = 3000;
/** How long the lab waits for the server's liveness answer before saying nobody answers. */
export const PROBE_TIMEOUT_MS = 3_000;

/**
 * Which server `npm run lab` plays against: `--url <url>` (or `--url=<url>`), else
 * `http://127.0.0.1:<PORT>` from the environment (the same PORT `npm start` listens on, .env files
 * included once the caller loaded them), else port 3000. Takes argv and env; returns the base URL
 * without a trailing slash, or an error sentence for a missing or unusable `--url` or PORT.
 */
export function labTarget(argv: readonly string[], env: Record<string, string | undefined>): { url: string } | { error: string } {
  const index = argv.findIndex((arg) => arg === "--url" || arg.startsWith("--url="));
  if (index >= 0) {
    const value = argv[index].startsWith("--url=") ? argv[index].slice("--url=".length) : argv[index + 1];
    if (!value || value.startsWith("--")) return { error: "--url needs a value, e.g. --url http://127.0.0.1:3000" };
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return { error: `--url ${value} is not a URL; use e.g. --url http://127.0.0.1:3000` };
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return { error: `--url ${value} must be http:// or https://` };
    return { url: value.replace(/\/+$/, "") };
  }
  const port = env.PORT?.trim();
  if (!port) return { url: `http://127.0.0.1:${DEFAULT_PORT}` };
  if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65_535) return { error: `PORT=${port} is not a port (1 to 65535)` };
  return { url: `http://127.0.0.1:${Number(port)}` };
}

/** Why a fetch failed, in words: connection refused, host not found, timeout, else the error's code. */
function failureReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string } })?.cause;
  const code = cause?.code ?? (error as { code?: string })?.code;
  if ((error as Error)?.name === "TimeoutError") return `no answer in ${PROBE_TIMEOUT_MS / 1000} s`;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "host not found";
  if (code === "ECONNRESET") return "connection reset";
  return code ?? "no answer";
}

/** What the lab learnt from the target's liveness answer: a sentence to print when it is not an Acredita answering, else its run mode (undefined when it does not say). */
export type ServerProbe = { problem: string } | { mode: RunMode | undefined };

/**
 * Checks that an Acredita server answers at `url` (GET /api/health/live, within
 * {@link PROBE_TIMEOUT_MS}) before the lab sends anything, and reads the mode it says it runs in.
 * Returns `{ problem }` with the sentence to print (who did not answer, why, and how to start a server
 * or point the lab at one), else `{ mode }`.
 */
export async function probeServer(url: string, fetcher: typeof fetch = fetch): Promise<ServerProbe> {
  const hint = "Start one in another terminal with `npm run demo` (or `npm start`), or point the lab at a running server with --url <url> or PORT.";
  let response: Response;
  try {
    response = await fetcher(`${url}/api/health/live`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS), redirect: "manual" });
  } catch (error) {
    return { problem: `no server answers at ${url} (${failureReason(error)}). ${hint}` };
  }
  if (response.status !== 200) return { problem: `${url} answers, but not as Acredita (GET /api/health/live: HTTP ${response.status}). ${hint}` };
  const body = (await response.json().catch(() => ({}))) as { mode?: unknown };
  return { mode: body.mode === "demo" || body.mode === "production" ? body.mode : undefined };
}

/** {@link probeServer}'s problem sentence alone: undefined when an Acredita answers at `url`. */
export async function serverProblem(url: string, fetcher: typeof fetch = fetch): Promise<string | undefined> {
  const probe = await probeServer(url, fetcher);
  return "problem" in probe ? probe.problem : undefined;
}

/**
 * Why the lab must not play against this target, or undefined when it may: the lab creates its five
 * demo orders and pays them, which belongs in a demo database. A production server (or one that does
 * not say its mode) is refused unless `--allow-production` is in argv. The sentence is in `view`'s locale.
 */
export function productionRefusal(mode: RunMode | undefined, url: string, argv: readonly string[], view: CliReasons = ENGLISH_CLI): string | undefined {
  if (mode === "demo" || argv.includes("--allow-production")) return undefined;
  return view.t(mode === "production" ? "reasons.lab.productionRefused" : "reasons.lab.modeUnknown", { url });
}

/**
 * Where `npm run lab` writes the settlement it reconciled: next to the target's own data. When the
 * target is the server this environment describes (a loopback host on this environment's PORT, the
 * same .env files as `npm start`), that is the folder of its SQLite file, `lab/settlement.csv` beside
 * it (`data/lab/settlement.csv` for the default `data/acredita.db`), or `data/lab/settlement.csv` on
 * PostgreSQL. Any other target gets a folder of its own under `data/lab/<host>-<port>/`, so playing
 * against another server never overwrites the local server's file.
 */
export function labSettlementPath(url: string, env: Record<string, string | undefined>): string {
  const target = new URL(url);
  const port = target.port || (target.protocol === "https:" ? "443" : "80");
  const localPort = env.PORT?.trim() || String(DEFAULT_PORT);
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(target.hostname);
  if (loopback && port === localPort) {
    const databaseUrl = env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL;
    if (isPostgresUrl(databaseUrl)) return path.join("data", "lab", "settlement.csv");
    return path.join(path.dirname(sqliteFilePath(databaseUrl)), "lab", "settlement.csv");
  }
  return path.join("data", "lab", `${target.hostname.replace(/[^A-Za-z0-9.-]/g, "_")}-${port}`, "settlement.csv");
}

/** Default of `--wait`: seconds the lab waits for the server to apply its stored events. */
export const DEFAULT_WAIT_SECONDS = 60;

/** `--wait <seconds>` (1 to 3600) from argv, else {@link DEFAULT_WAIT_SECONDS}; an error sentence for a bad value. */
export function labWaitSeconds(argv: readonly string[]): number | { error: string } {
  const index = argv.indexOf("--wait");
  if (index < 0) return DEFAULT_WAIT_SECONDS;
  const value = argv[index + 1];
  if (value === undefined || !/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 3600) return { error: `--wait needs a number of seconds from 1 to 3600 (got ${value ?? "nothing"})` };
  return Number(value);
}
