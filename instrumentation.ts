// Next.js calls register() once when the server starts. It first refuses to serve a configuration
// that is unsafe or wrong (a bare `next start` gets the same checks as `npm start`), then rewrites
// X-Forwarded-For from the socket (lib/auth/client-address.ts: only TRUSTED_PROXIES may forward a client
// address), and runs the inbox worker and the outbox dispatcher inside the server process by default
// (INBOX_WORKER_IN_PROCESS), so one command starts everything; refusal counts are flushed on stop.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NEXT_PHASE === "phase-production-build") return;
  const { registerNode } = await import("./instrumentation-node");
  await registerNode();
}
