// Paging constants and the page shape, without zod: client components import these, and zod 4 probes
// `Function("")` when a schema is built, which the dashboard's CSP (no 'unsafe-eval') reports as a
// violation in the browser.

/** One page of a list, the shape every dashboard list returns. `page` is 1-based. */
export interface Page<T> {
  data: T[];
  count: number;
  page: number;
  pageSize: number;
  totalPages: number;
}

/** Page sizes offered in the UI; the strict schemas cap pageSize at {@link MAX_PAGE_SIZE}. */
export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;
/** Deepest page reachable by offset (keeps OFFSET scans bounded; filters narrow beyond it). */
export const MAX_PAGE = 10_000;
