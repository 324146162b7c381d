import { randomFillSync } from "node:crypto";
import { monotonicFactory } from "ulid";

/** Random bytes drawn 4 KiB at a time: the default draws one byte per call of node:crypto per character. */
const pool = Buffer.alloc(4096);
let taken = pool.length;

/** A uniform number in [0, 1) from the CSPRNG, in steps of 1/256 (each of ULID's 32 symbols from 8 of them). */
function pooledRandom(): number {
  if (taken >= pool.length) {
    randomFillSync(pool);
    taken = 0;
  }
  return pool[taken++] / 256;
}

const next = monotonicFactory(pooledRandom);

/**
 * A new primary key for rows Acredita writes with raw SQL (the model API fills `@default(cuid())` itself):
 * a ULID, which sorts by its time (`at`, default now; ms) and, within one millisecond in this process, by
 * creation order. Lists that break ties on `(at, id)` (the order timeline, the decision log) then show
 * rows written in the same millisecond in the order they were written.
 */
export function newRowId(at: Date = new Date()): string {
  return next(at.getTime());
}
