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

/**
 * Checks that an Acredita server answers at `url` (GET /api/health/live, within
 * {@link PROBE_TIMEOUT_MS}) before the lab sends anything. Returns undefined when it does, else the
 * sentence to print: who did not answer, why, and how to start a server or point the lab at one.
 */
export async function serverProblem(url: string, fetcher: typeof fetch = fetch): Promise<string | undefined> {
  const hint = "Start one in another terminal with `npm run demo` (or `npm start`), or point the lab at a running server with --url <url> or PORT.";
  let status: number;
  try {
    status = (await fetcher(`${url}/api/health/live`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS), redirect: "manual" })).status;
  } catch (error) {
    return `no server answers at ${url} (${failureReason(error)}). ${hint}`;
  }
  if (status !== 200) return `${url} answers, but not as Acredita (GET /api/health/live: HTTP ${status}). ${hint}`;
  return undefined;
}
