import type { Db } from "@/lib/db/client";
import { driverOf, rolledBack } from "@/lib/db/driver";
import { newRowId } from "@/lib/db/row-id";
import type { OrderBooks } from "@/lib/ledger/order-books";
import { findReplayCandidates, type ReplayCandidate } from "@/lib/replay/replay-candidates";
import { normalizedFilter, type ReplayFilter } from "@/lib/replay/replay-filter";
import { letterEndpoints, runReplayEvents, type ReplayEventResult } from "@/lib/replay/replay-run";
import { insertReplay, readReplay, type ReplayEventRow, type ReplayView } from "@/lib/replay/replay-store";
import { eventView, fingerprints, orderViews } from "@/lib/replay/replay-views";

/** Events previewed per rolled-back transaction at most (an order's events are never split): SQLite's one connection is held for each. */
export const PREVIEW_BATCH_EVENTS = 50;

/** What a preview came to: the stored replay; no event matched; or more than a replay holds. */
export type PreviewResult = { kind: "previewed"; replay: ReplayView } | { kind: "no_events" } | { kind: "too_many"; count: number; limit: number };

/** The keys that tie events together: the order they name or reached, a checkout session, a payment in its scope. */
function linksOf(candidate: ReplayCandidate): string[] {
  const links = candidate.orderId ? [`order:${candidate.orderId}`] : [];
  const effect = candidate.event?.effect;
  if (effect && "orderRef" in effect) {
    if (effect.orderRef.orderId) links.push(`order:${effect.orderRef.orderId}`);
    if (effect.orderRef.checkoutSessionId) links.push(`session:${effect.orderRef.checkoutSessionId}`);
  }
  if (effect && "paymentKey" in effect) links.push(`payment:${candidate.provider}:${candidate.account}:${candidate.livemode}:${effect.paymentKey}`);
  return links;
}

/**
 * Splits the events into batches of about {@link PREVIEW_BATCH_EVENTS}, each in creation order, never
 * separating events that share an order, a checkout session or a payment (union-find over those keys),
 * so every event sees what the earlier events of its order did.
 */
export function previewBatches<T extends ReplayCandidate>(candidates: readonly T[], size = PREVIEW_BATCH_EVENTS): T[][] {
  const parent = candidates.map((_, index) => index);
  const root = (index: number): number => (parent[index] === index ? index : (parent[index] = root(parent[index])));
  const owner = new Map<string, number>();
  candidates.forEach((candidate, index) => {
    for (const link of linksOf(candidate)) {
      const other = owner.get(link);
      if (other === undefined) owner.set(link, index);
      else parent[root(index)] = root(other);
    }
  });
  const groups = new Map<number, number[]>();
  candidates.forEach((_, index) => {
    const group = groups.get(root(index)) ?? [];
    group.push(index);
    groups.set(root(index), group);
  });
  const batches: number[][] = [];
  let current: number[] = [];
  for (const group of groups.values()) {
    if (current.length > 0 && current.length + group.length > size) {
      batches.push(current);
      current = [];
    }
    current.push(...group);
  }
  if (current.length > 0) batches.push(current);
  return batches.map((batch) => batch.sort((a, b) => a - b).map((index) => candidates[index]));
}

/**
 * Previews a replay of the events `filter` names (lib/replay/replay-filter.ts), for `actor`: runs them
 * with today's code, through the real apply entry point, in transactions that are rolled back (batches
 * of whole orders), and stores the replay with what it would do: each event's outcome and reason, and
 * for each order its status and totals before and after, the ledger entries it would book and the
 * money per currency. Nothing else is kept: no decision row, no outbox message, no wake-up, no dead
 * letter resolved, no log line of an effect. Returns the stored replay (status `previewed`),
 * `no_events`, or `too_many` (more than MAX_REPLAY_EVENTS). Throws the database's errors.
 */
export async function previewReplay(db: Db, actor: { email: string; organizationId: string }, filter: ReplayFilter, now = new Date()): Promise<PreviewResult> {
  const organizationId = actor.organizationId;
  const found = await findReplayCandidates(db, organizationId, filter);
  if (found.kind === "too_many") return found;
  const candidates = found.candidates;
  if (candidates.length === 0) return { kind: "no_events" };

  const endpoints = await letterEndpoints(db, candidates, now);
  const results = new Map<ReplayCandidate, ReplayEventResult>();
  const before = new Map<string, OrderBooks | null>();
  const after = new Map<string, OrderBooks | null>();
  for (const batch of previewBatches(candidates)) {
    // Decision rows are collected and dropped: a preview writes none.
    const run = await rolledBack(driverOf(db), (session) => runReplayEvents(session, organizationId, batch, now, [], endpoints));
    batch.forEach((candidate, index) => results.set(candidate, run.results[index]));
    for (const [orderId, books] of run.before) if (!before.has(orderId)) before.set(orderId, books);
    for (const [orderId, books] of run.after) after.set(orderId, books);
  }

  const events = candidates.map((candidate, position) => eventView(position, candidate, results.get(candidate)!));
  const preview = { events, orders: orderViews(before, after), fingerprints: fingerprints(before, after) };
  const id = newRowId(now);
  const rows: ReplayEventRow[] = candidates.flatMap((candidate, position) =>
    events[position].outcome === "skipped"
      ? []
      : [{ position, webhookEventId: candidate.storedEventId, deadLetterId: candidate.deadLetterId, provider: candidate.provider, account: candidate.account, livemode: candidate.livemode, eventId: candidate.eventId, endpoint: candidate.endpoint, bodyHash: candidate.bodyHash }],
  );
  await insertReplay(db, { id, organizationId, createdAt: now, createdBy: actor.email, filter: normalizedFilter(filter), preview }, rows);
  return { kind: "previewed", replay: (await readReplay(db, organizationId, id))!.view };
}
