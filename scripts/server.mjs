// npm start's server process (started, and restarted when it dies, by scripts/start.ts): the built
// Next.js app served through Next's documented custom-server API (`next({ dev: false }).getRequestHandler()`)
// inside Acredita's own HTTP server (lib/server/app-server.mjs), which `next start` cannot give: bounded
// connections per client address and in all, short headers and body timeouts, and anonymous action posts
// refused before their body is read. Everything else is Next.js's own handling, as under `next start`:
// instrumentation.ts, proxy.ts, routes, pages, the in-process worker.
//
//   node [flags] scripts/server.mjs --port 3000 --host 127.0.0.1 --read-timeout-ms 10000
//        --max-connections-per-address 20 --max-connections 256
//
// The values are the settings start.ts has already validated (WEBHOOK_BODY_READ_TIMEOUT_MS,
// RECEIVER_MAX_CONNECTIONS_PER_ADDRESS, RECEIVER_MAX_CONNECTIONS); AUTH_SECRET comes in the environment.
// SIGTERM and SIGINT stop it as they stop `next start`: no new connections, the requests in hand answered
// (all connections closed after 10 s), Next.js closed, exit status 143 or 130. Plain JavaScript: a
// TypeScript loader in this process cost ~90 MB of RSS (lib/net/connection-bounds.mjs).
import { parseArgs } from "node:util";

// Before Next.js loads: it reads NODE_ENV as it starts, as `next start` sets it.
process.env.NODE_ENV = "production";
process.title = "next-server (acredita)";

const { values } = parseArgs({
  options: {
    port: { type: "string" },
    host: { type: "string" },
    "read-timeout-ms": { type: "string" },
    "max-connections-per-address": { type: "string" },
    "max-connections": { type: "string" },
  },
});

/**
 * The value of option `name` as a whole number of at least `min`; exits 2 naming it otherwise.
 * @param {string} name
 * @param {number} min
 * @returns {number}
 */
function wholeNumber(name, min) {
  const text = values[/** @type {keyof typeof values} */ (name)];
  const value = Number(text);
  if (text === undefined || !/^\d+$/.test(text) || value < min) {
    console.error(`scripts/server.mjs: --${name} must be a whole number of at least ${min} (got ${text === undefined ? "nothing" : JSON.stringify(text)})`);
    process.exit(2);
  }
  return value;
}

const port = wholeNumber("port", 1);
const host = values.host ?? "127.0.0.1";
const readTimeoutMs = wholeNumber("read-timeout-ms", 1);
const maxConnectionsPerAddress = wholeNumber("max-connections-per-address", 0);
const maxConnections = wholeNumber("max-connections", 1);

// What `next start` sets before it loads the app: the port the app runs on and its own origin (Next.js
// forwards server actions to it).
process.env.PORT = String(port);
process.env.__NEXT_PRIVATE_ORIGIN = `http://${host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host}:${port}`;

const { default: next } = await import("next");
const { createAppServer } = await import("../lib/server/app-server.mjs");

const app = next({ dev: false, dir: process.cwd(), hostname: host, port });
/** @type {import("../lib/server/app-server.mjs").AppServer | undefined} */
let appServer;

// Registered before the app loads: instrumentation.ts adds its own SIGTERM listeners (the in-process
// worker, the refusal counts), and with any listener Node no longer exits on the signal by itself.
let stopping = false;
for (const [signal, status] of /** @type {const} */ ([["SIGTERM", 143], ["SIGINT", 130]])) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void (appServer ? appServer.close(10_000) : Promise.resolve())
      .then(() => app.close())
      .catch((error) => console.error(error))
      .finally(() => process.exit(status));
  });
}

// Loads the build, runs instrumentation.ts (its configuration checks may exit the process), and
// prepares proxy.ts and the routes, before the port is opened: no request waits for it.
await app.prepare();
const handle = app.getRequestHandler();
appServer = createAppServer((request, response) => handle(request, response), { readTimeoutMs, maxConnectionsPerAddress, maxConnections, authSecret: process.env.AUTH_SECRET ?? "" });
appServer.server.once("error", (error) => {
  console.error(`Failed to start server: ${/** @type {NodeJS.ErrnoException} */ (error).code === "EADDRINUSE" ? `${host}:${port} is already in use` : error.message}`);
  process.exit(1);
});
appServer.server.listen(port, host, () => console.log(`Acredita server ready on http://${host}:${port}`));
