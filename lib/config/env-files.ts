// Imported first by the command-line tools (create-user, dead-letters, outbox, reconcile, retention,
// worker, receiver): loads the same environment files as `npm start` and the Next.js server (.env,
// .env.production, .env.local, ...), so a setting written in `.env` (DATABASE_URL above all) reaches
// every process of the deployment, not only the server. A variable already set in the environment wins,
// as in Next.js. Errors reading a file go to stderr; nothing is printed otherwise.
import { loadEnvConfig } from "@next/env";

loadEnvConfig(process.cwd(), false, { info: () => undefined, error: (...args: unknown[]) => console.error(...args) });
