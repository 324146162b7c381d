import { monotonicFactory } from "ulid";

const next = monotonicFactory();

/**
 * A new primary key for rows Acredita writes with raw SQL (the model API fills `@default(cuid())` itself):
 * a ULID, which sorts by its time (`at`, default now; ms) and, within one millisecond in this process, by
 * creation order. Lists that break ties on `(at, id)` (the order timeline, the decision log) then show
 * rows written in the same millisecond in the order they were written.
 */
export function newRowId(at: Date = new Date()): string {
  return next(at.getTime());
}
