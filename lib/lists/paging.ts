import { z } from "zod";

import { DEFAULT_PAGE_SIZE, MAX_PAGE, MAX_PAGE_SIZE, PAGE_SIZES, type Page } from "@/lib/lists/page-sizes";

export { DEFAULT_PAGE_SIZE, MAX_PAGE, MAX_PAGE_SIZE, PAGE_SIZES, type Page } from "@/lib/lists/page-sizes";

/** Strict paging for queries: integers, 1 <= page <= MAX_PAGE, 1 <= pageSize <= MAX_PAGE_SIZE. */
export const pagingSchema = z.object({
  page: z.number().int().min(1).max(MAX_PAGE),
  pageSize: z.number().int().min(1).max(MAX_PAGE_SIZE),
});

/** Builds a {@link Page} from one page of rows and the total matching count. */
export function pageOf<T>(data: T[], count: number, page: number, pageSize: number): Page<T> {
  return { data, count, page, pageSize, totalPages: Math.max(1, Math.ceil(count / pageSize)) };
}

/** Next.js page `searchParams` after awaiting. */
export type SearchParams = Record<string, string | string[] | undefined>;

/** The first value of a search param (a repeated `?a=1&a=2` keeps the first), trimmed; undefined if empty. */
export function param(params: SearchParams, name: string): string | undefined {
  const raw = params[name];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  return value ? value : undefined;
}

/** Lenient URL parsing: the value when `schema` accepts it, else `fallback` (a bad link never throws). */
export function lenient<T>(schema: z.ZodType<T>, value: unknown, fallback: T): T {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : fallback;
}

/** Lenient page and page size from the URL: page >= 1 (capped), pageSize one of {@link PAGE_SIZES}. */
export function pagingFromParams(params: SearchParams): { page: number; pageSize: number } {
  const page = lenient(z.coerce.number().int().min(1), param(params, "page"), 1);
  const size = lenient(z.coerce.number().int(), param(params, "pageSize"), DEFAULT_PAGE_SIZE);
  return { page: Math.min(page, MAX_PAGE), pageSize: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE };
}

/** A URL parameter that was given but not understood, so the list did not apply it: its name and value as given (cut to 60 characters). */
export interface ParamNotUnderstood {
  name: string;
  value: string;
}

/**
 * The parameters of `params` that `understood` (one check per parameter name) refuses: a lenient list
 * page ignores a value it cannot read (a bad link never fails) but must say so, or "?status=bogus"
 * silently reads as "any". Unset and empty parameters are not listed. Returns them in `understood`'s order.
 */
export function paramsNotUnderstood(params: SearchParams, understood: Record<string, (value: string) => boolean>): ParamNotUnderstood[] {
  return Object.entries(understood).flatMap(([name, check]) => {
    const value = param(params, name);
    return value === undefined || check(value) ? [] : [{ name, value: value.length > 60 ? `${value.slice(0, 59)}…` : value }];
  });
}

/** True when `page` asks for a page past the last one of a non-empty list (a shared link after the list shrank, or a typed ?page=99). */
export function pastLastPage(page: Pick<Page<unknown>, "page" | "totalPages" | "count">): boolean {
  return page.count > 0 && page.page > page.totalPages;
}

/** Lenient UTC day (YYYY-MM-DD) from the URL as the Date at 00:00 UTC, or undefined. */
export function dayFromParams(params: SearchParams, name: string): Date | undefined {
  const value = param(params, name);
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const date = new Date(`${value}T00:00:00.000Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value ? undefined : date;
}

/** The day after `day` (exclusive upper bound of a "to" day filter). */
export function nextDay(day: Date): Date {
  return new Date(day.getTime() + 24 * 60 * 60 * 1000);
}

/** Serialises filters back to a query string, dropping empty values (for links that keep the state). */
export function toQueryString(values: Record<string, string | number | undefined | null>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && value !== null && value !== "") query.set(key, String(value));
  }
  const text = query.toString();
  return text ? `?${text}` : "";
}

/**
 * An id prefix as an index range: `id >= prefix AND id < prefix + U+FFFF`. Unlike LIKE/contains this
 * uses the primary-key index on SQLite and PostgreSQL alike, so a search stays fast at 100,000 rows.
 */
export function prefixRange(prefix: string): { gte: string; lt: string } {
  return { gte: prefix, lt: `${prefix}\uffff` };
}

/** Lenient UTC time from the URL: `YYYY-MM-DDTHH:MM` (a datetime-local input, read as UTC) or a day; else undefined. */
export function timeFromParams(params: SearchParams, name: string): Date | undefined {
  const value = param(params, name);
  if (!value) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return dayFromParams(params, name);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return undefined;
  const date = new Date(`${value}${value.length === 16 ? ":00" : ""}.000Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
