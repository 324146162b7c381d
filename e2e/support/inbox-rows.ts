/** The time the inbox test rows are received and due at, unless a test says otherwise. */
export const INBOX_T0 = new Date("2026-11-29T12:00:00.000Z");

/**
 * A WebhookEvent row as Acredita's writers leave it, for tests that fill the inbox directly: a lab
 * `payment.approved` of the default account, `received` and due at {@link INBOX_T0}, with `extra`
 * overriding any column. `dueAt` follows the writers' rule (docs/apply-limit.md): `nextAttemptAt` while
 * waiting (`received`, `failed`), the lease's expiry while `processing`, null once finished.
 */
export function inboxRow(eventId: string, extra: Record<string, unknown> = {}) {
  const row = {
    provider: "lab",
    endpoint: "lab",
    account: "default",
    livemode: true,
    eventId,
    type: "payment.approved",
    bodyHash: "0".repeat(64),
    status: "received",
    payload: "{}",
    attempts: 0,
    nextAttemptAt: INBOX_T0 as Date | null,
    leaseExpiresAt: null as Date | null,
    receivedAt: INBOX_T0,
    ...extra,
  };
  const dueAt = row.status === "received" || row.status === "failed" ? row.nextAttemptAt : row.status === "processing" ? row.leaseExpiresAt : null;
  return { ...row, dueAt: dueAt ?? null };
}
