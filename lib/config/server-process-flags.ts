import type { Settings } from "@/lib/config/settings";

/**
 * The Node.js flags of the Next.js server process (`npm start`, `npm run demo`, and the benchmarks that
 * start the server): V8's old generation capped at 256 MB.
 *
 * Without a cap V8 sizes the heap from the machine's memory (4 GB on a 24 GB machine), and before its
 * first full collection it lets the old generation fill with promoted garbage (each delivery's and
 * progress poll's short-lived objects) up to a limit derived from that size: a server whose live heap
 * is ~70 MB grew to 120 MB of old generation and 290 to 320 MB of RSS during a long reconciliation
 * before V8 collected anything. With the cap V8 collects every few tens of MB, and the process stays
 * near its live size. 256 MB is about 3.5 times the server's live heap under load (modules, Prisma's
 * query compiler, request state) and keeps the process within its 300 MB memory budget; a server that
 * really needed more would be over that budget anyway.
 *
 * The young generation's semi-spaces are capped at 4 MB (V8's default grows them to 16 MB under
 * allocation pressure): a burst of large request bodies (ten 1 MiB webhook bodies held by slow senders)
 * otherwise grew the process's RSS by ~36 MB of young-generation space, with 4 MB by 13 to 20 MB; the
 * scavenges stay short and the server's live objects are long-lived anyway.
 */
export const SERVER_PROCESS_FLAGS: readonly string[] = ["--max-old-space-size=256", "--max-semi-space-size=4"];

/** The option a flag sets, spelled with dashes (`--max_old_space_size=1` -> `--max-old-space-size`). */
function optionName(flag: string): string {
  return flag.split("=")[0].replace(/_/g, "-");
}

/**
 * {@link SERVER_PROCESS_FLAGS} less those whose option `nodeOptions` (NODE_OPTIONS by default) already
 * sets: a command-line flag would win over NODE_OPTIONS, and an operator who gives the server a larger
 * (or smaller) heap there means it.
 */
export function serverProcessFlags(nodeOptions = process.env.NODE_OPTIONS ?? ""): string[] {
  const set = new Set(nodeOptions.split(/\s+/).filter(Boolean).map(optionName));
  return SERVER_PROCESS_FLAGS.filter((flag) => !set.has(optionName(flag)));
}

/** The entry of npm start's server process: Next.js's request handler in Acredita's bounded HTTP server. */
export const SERVER_ENTRY = "scripts/server.mjs";

/**
 * The command line of npm start's server process after Node's flags: {@link SERVER_ENTRY} listening on
 * `host`:PORT, with the bounds it takes from the settings (WEBHOOK_BODY_READ_TIMEOUT_MS,
 * RECEIVER_MAX_CONNECTIONS_PER_ADDRESS, RECEIVER_MAX_CONNECTIONS; scripts/server.mjs reads no settings
 * itself). The benchmarks and process tests start the server the same way.
 */
export function serverArguments(config: Pick<Settings, "PORT" | "WEBHOOK_BODY_READ_TIMEOUT_MS" | "RECEIVER_MAX_CONNECTIONS_PER_ADDRESS" | "RECEIVER_MAX_CONNECTIONS">, host: string): string[] {
  return [
    SERVER_ENTRY,
    ...["--port", String(config.PORT), "--host", host],
    ...["--read-timeout-ms", String(config.WEBHOOK_BODY_READ_TIMEOUT_MS)],
    ...["--max-connections-per-address", String(config.RECEIVER_MAX_CONNECTIONS_PER_ADDRESS)],
    ...["--max-connections", String(config.RECEIVER_MAX_CONNECTIONS)],
  ];
}
