// Next.js calls register() once when the server starts: X-Forwarded-For is rewritten from the socket
// (lib/auth/client-address.ts: only TRUSTED_PROXIES may forward a client address), and the inbox worker
// and the outbox dispatcher run inside the server process by default (INBOX_WORKER_IN_PROCESS), so one
// command starts everything.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NEXT_PHASE === "phase-production-build") return;
  const [{ installClientAddress }, { settings }] = await Promise.all([import("./lib/auth/client-address"), import("./lib/config/settings")]);
  installClientAddress(settings().TRUSTED_PROXIES);
  const { startInProcessWorkers } = await import("./lib/background/in-process-workers");
  startInProcessWorkers();
}
