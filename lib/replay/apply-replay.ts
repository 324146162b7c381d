import { signalAfterApply } from "@/lib/apply/apply-stored-event";
import { recordAuditIn, type AuditActor } from "@/lib/audit/record-audit";
import { ConcurrentChange } from "@/lib/core/failures";
import type { Db } from "@/lib/db/client";
import { driverOf } from "@/lib/db/driver";
import { uniqueViolationFields } from "@/lib/db/errors";
import { nameDeadLetterResolverIn, openDeadLetterIds } from "@/lib/dead-letters/dead-letters";
import { insertDecisions, logDecision, type DecisionRow } from "@/lib/decisions/record-decision";
import { booksFingerprint, readOrderBooks } from "@/lib/ledger/order-books";
import { because } from "@/lib/reasons/reason-codes";
import { candidatesOf, type ReplayCandidate } from "@/lib/replay/replay-candidates";
import { letterEndpoints, runReplayEvents } from "@/lib/replay/replay-run";
import { markReplayApplied, markReplayStale, readReplay, recordReplayResult, type ReplayView } from "@/lib/replay/replay-store";
import { eventView } from "@/lib/replay/replay-views";

/**
 * What applying a replay came to:
 * - applied: its events were applied, exactly those previewed, with the outcomes and books previewed;
 * - already_applied: it had been applied before (nothing applied now);
 * - stale: an order's status, totals or ledger moved since the preview (or an event would now do
 *   something else): nothing applied, the replay can no longer be applied, a new preview is needed;
 * - not_found.
 */
export type ApplyReplayResult =
  | { kind: "applied"; replay: ReplayView; applied: number }
  | { kind: "already_applied"; replay: ReplayView }
  | { kind: "stale"; replay: ReplayView; orders: string[]; events: number[] }
  | { kind: "not_found" };

/** Thrown inside the apply's transaction to roll it back when the books are not as previewed. */
class StalePreview extends Error {
  constructor(
    readonly orders: string[],
    readonly events: number[],
  ) {
    super("the books moved since the preview");
    this.name = "StalePreview";
  }
}

/** Thrown when the replay is no longer `previewed` (applied or stale meanwhile). */
class NotPreviewed extends Error {}

/**
 * Applies a previewed replay for `actor`, in ONE transaction: marks it applied (the first write, so two
 * applies at once apply it once), checks that every order it reaches still has the books it had at the
 * preview (status, refunded and disputed totals, every ledger entry), applies exactly the previewed
 * events in their order through the real apply entry point (the same run as the preview), checks that
 * each event did what the preview said and every order ended as previewed, writes the decision rows
 * (source `replay`), names `actor` on the dead letters the apply resolved, records what it did on the
 * replay and an audit row (`replay.apply`). Anything not as previewed rolls everything back and marks
 * the replay stale. After the commit the decisions are logged and the workers woken. An event that
 * already booked its effect changes nothing (its business keys are taken: `duplicate`). Throws the
 * database's errors (a busy database: nothing applied, the replay stays previewed).
 */
export async function applyReplay(db: Db, actor: AuditActor, id: string, now = new Date()): Promise<ApplyReplayResult> {
  // The actor acts in one organization: only its replay, events and orders are read or changed.
  const organizationId = actor.organizationId;
  const stored = await readReplay(db, organizationId, id);
  if (!stored) return { kind: "not_found" };
  if (stored.view.status === "applied") return { kind: "already_applied", replay: stored.view };
  if (stored.view.status === "stale") return { kind: "stale", replay: stored.view, orders: [], events: [] };

  const found = await candidatesOf(db, organizationId, stored.events);
  const gone = stored.events.filter((_, index) => found[index] === null).map((event) => event.position);
  const decisions: DecisionRow[] = [];
  try {
    if (gone.length > 0) throw new StalePreview([], gone);
    const candidates = found as ReplayCandidate[];
    const endpoints = await letterEndpoints(db, candidates, now);
    const run = await driverOf(db).transaction(async (session) => {
      if (!(await markReplayApplied(session, id, actor.email, now))) throw new NotPreviewed();
      const moved: string[] = [];
      for (const [orderId, fingerprint] of Object.entries(stored.preview.fingerprints)) {
        if (booksFingerprint(await readOrderBooks(session, organizationId, orderId)) !== fingerprint.before) moved.push(orderId);
      }
      if (moved.length > 0) throw new StalePreview(moved, []);
      const open = await openDeadLetterIds(session, candidates.flatMap((candidate) => (candidate.deadLetterId ? [candidate.deadLetterId] : [])));
      const done = await runReplayEvents(session, organizationId, candidates, now, decisions, endpoints);
      const changed = stored.events
        .filter((event, index) => {
          const previewed = stored.preview.events[event.position];
          return done.results[index].outcome !== previewed.outcome || done.results[index].orderId !== previewed.orderId;
        })
        .map((event) => event.position);
      const endedElsewhere = [...done.before.keys()].filter((orderId) => stored.preview.fingerprints[orderId]?.after !== booksFingerprint(done.after.get(orderId) ?? null));
      if (changed.length > 0 || endedElsewhere.length > 0) throw new StalePreview(endedElsewhere, changed);
      await insertDecisions(session, decisions, now);
      await nameDeadLetterResolverIn(session, open, actor.email);
      const views = stored.events.map((event, index) => eventView(event.position, candidates[index], done.results[index]));
      await recordReplayResult(session, id, views);
      const applied = done.results.filter((result) => result.outcome === "applied").length;
      await recordAuditIn(session, actor, { action: "replay.apply", targetType: "replay", targetId: id, note: because("audit_replay_applied", { events: candidates.length, applied, orders: done.before.size }) }, now);
      return { ...done, appliedCount: applied };
    });
    for (const row of decisions) logDecision(row);
    for (const applied of run.applied) signalAfterApply(applied);
    return { kind: "applied", replay: (await readReplay(db, organizationId, id))!.view, applied: run.appliedCount };
  } catch (error) {
    const stale = error instanceof StalePreview ? error : error instanceof ConcurrentChange || uniqueViolationFields(error) !== undefined ? new StalePreview([], []) : undefined;
    if (stale) {
      await markReplayStale(db, id);
      return { kind: "stale", replay: (await readReplay(db, organizationId, id))!.view, orders: stale.orders, events: stale.events };
    }
    if (error instanceof NotPreviewed) {
      const current = (await readReplay(db, organizationId, id))!.view;
      return current.status === "applied" ? { kind: "already_applied", replay: current } : { kind: "stale", replay: current, orders: [], events: [] };
    }
    throw error;
  }
}
