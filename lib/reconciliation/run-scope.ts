import { endpointDefinitions, loadEndpoints } from "@/lib/endpoints/endpoints";
import type { SettlementFormat } from "@/lib/reconciliation/settlement-entries";
import type { PaymentScope } from "@/lib/core/business-keys";
import { reasonRef, reasonText, type ReasonCode, type ReasonParams, type ReasonRef } from "@/lib/reasons/reason-codes";

/**
 * What one reconciliation run compares: the ledger entries of one provider, account and live/test
 * (the payment scope of lib/core/business-keys.ts) booked in the period [from, to) in UTC. A period
 * left open is taken from the report (its first and last line's UTC days), or unbounded for the lab's
 * order-level file, which has no dates.
 */
export interface RunScope extends PaymentScope {
  from?: Date;
  to?: Date;
}

/** What a caller may say about a run (CLI flags, API query parameters); everything is optional. */
export interface ScopeRequest {
  format?: SettlementFormat;
  provider?: string;
  account?: string;
  livemode?: boolean;
  from?: string;
  to?: string;
}

/** A scope or period that cannot be used: the message names the flag or parameter (exit 2 / HTTP 400). */
export class ScopeError extends Error {
  constructor(readonly reason: ReasonRef) {
    super(reasonText(reason));
    this.name = "ScopeError";
  }
}

function refuse<C extends ReasonCode>(code: C, params: ReasonParams<C>): never {
  throw new ScopeError(reasonRef(code, params));
}

/** The formats callers name (`--format`, `?format=`) and the reader's names for them. */
export const FORMAT_NAMES: Readonly<Record<string, SettlementFormat>> = {
  "stripe-balance": "stripe-balance-change",
  "stripe-balance-change": "stripe-balance-change",
  "stripe-payout": "stripe-payout-reconciliation",
  "stripe-payout-reconciliation": "stripe-payout-reconciliation",
  neutral: "payments",
  payments: "payments",
  lab: "lab",
};

/**
 * Parses a format name (`stripe-balance`, `stripe-payout`, `neutral`, `lab`, or the reader's long
 * names). Throws {@link ScopeError} for another value.
 */
export function parseFormat(name: string): SettlementFormat {
  const format = FORMAT_NAMES[name.trim().toLowerCase()];
  if (!format) refuse("scope_bad_format", { flag: "--format", value: name.slice(0, 40) });
  return format;
}

/** A scope the upload form offers: a configured endpoint's provider, account and live/test, and the endpoints that stand for it. */
export interface ScopeChoice {
  /** {@link scopeKey} of the scope. */
  key: string;
  provider: string;
  account: string;
  livemode: boolean;
  /** The endpoints' URL names (`/api/webhooks/<name>`) bound to this scope, sorted. */
  endpoints: string[];
}

/**
 * The scopes of the endpoints this process serves, one per provider, account and live/test (two
 * endpoints of one scope are one choice), sorted by key: what a reconciliation can compare, offered
 * instead of typing a provider and an account. An invalid configuration offers none (the start
 * refuses it and names why).
 */
export function configuredScopes(env: Record<string, string | undefined> = process.env): ScopeChoice[] {
  let endpoints: ReturnType<typeof loadEndpoints>["endpoints"];
  try {
    endpoints = loadEndpoints(env).endpoints;
  } catch {
    return [];
  }
  const choices = new Map<string, ScopeChoice>();
  for (const endpoint of endpoints) {
    const key = scopeKey(endpoint);
    const choice = choices.get(key) ?? { key, provider: endpoint.provider, account: endpoint.account, livemode: endpoint.livemode, endpoints: [] };
    choice.endpoints.push(endpoint.name);
    choices.set(key, choice);
  }
  return [...choices.values()].map((choice) => ({ ...choice, endpoints: choice.endpoints.sort() })).sort((a, b) => a.key.localeCompare(b.key));
}

/** `<provider>:<account>:<live|test>`: the key under which at most one run is running at a time. */
export function scopeKey(scope: PaymentScope): string {
  return `${scope.provider}:${scope.account}:${scope.livemode ? "live" : "test"}`;
}

function instant(text: string, flag: string): Date {
  const trimmed = text.trim();
  // A date alone is that day's UTC midnight; a date and time must say its offset (Z or +hh:mm) or is taken as UTC.
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(trimmed) ? `${trimmed}T00:00:00Z` : /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(trimmed) ? `${trimmed.replace(" ", "T")}Z` : trimmed;
  const at = new Date(iso);
  if (!/^\d{4}-\d{2}-\d{2}/.test(trimmed) || Number.isNaN(at.getTime())) refuse("scope_bad_date", { flag, value: trimmed.slice(0, 40) });
  return at;
}

/**
 * The scope of a run from what the caller said and the report's format:
 * - the provider: given, else `stripe` for Stripe's reports and `lab` for the lab's file; the neutral
 *   payments CSV needs it (there is no default);
 * - account and live/test: given, else those of the first configured endpoint of that provider
 *   (lib/endpoints/endpoints.ts: STRIPE_ACCOUNT_ID, YOLFI_ORG_ID, ...);
 * - the period: both ends, one end (the other taken from the file), or none.
 * Throws {@link ScopeError} for a provider no endpoint serves (without an explicit account), a Stripe
 * report scoped to another provider, a bad date, or from not before to.
 */
export function resolveScope(format: SettlementFormat, request: ScopeRequest, env: Record<string, string | undefined> = process.env): RunScope {
  const provider = request.provider?.trim() || (format.startsWith("stripe") ? "stripe" : format === "lab" ? "lab" : undefined);
  if (!provider) refuse("scope_needs_provider", { flag: "--provider" });
  if (format.startsWith("stripe") && provider !== "stripe") refuse("scope_stripe_only", { flag: "--provider", provider: provider.slice(0, 40) });
  const endpoint = endpointDefinitions(env).find((definition) => definition.provider === provider && (request.livemode === undefined || definition.livemode === request.livemode));
  const account = request.account?.trim() || endpoint?.account;
  if (!account) refuse("scope_no_endpoint", { flag: "--provider", provider: provider.slice(0, 40), accountFlag: "--account" });
  if (account.includes(":")) refuse("scope_account_colon", { flag: "--account" });
  const livemode = request.livemode ?? endpoint?.livemode ?? true;
  const from = request.from ? instant(request.from, "--from") : undefined;
  const to = request.to ? instant(request.to, "--to") : undefined;
  if (from && to && from.getTime() >= to.getTime()) refuse("scope_from_after_to", { from: "--from", to: "--to" });
  return { provider, account, livemode, from, to };
}

const DAY_MS = 86_400_000;

/**
 * The period a report covers when not given: from the UTC midnight of its earliest line to the UTC
 * midnight after its latest (Stripe's reports run over whole UTC days, and a credit booked a few
 * seconds after its charge settled still falls inside). A given end wins over the file's.
 */
export function periodFromFile(earliest: Date | undefined, latest: Date | undefined, given: { from?: Date; to?: Date }): { from: Date; to: Date } | undefined {
  const from = given.from ?? (earliest ? new Date(Math.floor(earliest.getTime() / DAY_MS) * DAY_MS) : undefined);
  const to = given.to ?? (latest ? new Date(Math.floor(latest.getTime() / DAY_MS) * DAY_MS + DAY_MS) : undefined);
  if (!from || !to) return undefined;
  return { from, to };
}
