import { because, reasonRef, reasonText, type ReasonRef } from "@/lib/reasons/reason-codes";
import type { ProviderStatus } from "@/lib/reconciliation/settlement-csv";

/** What Acredita holds for one order: status and the sum of its ledger entries (minor units). */
export interface FoundOrder {
  status: string;
  credited: number;
  currency: string;
}

/** One difference between the books and the provider's settlement. */
export interface Mismatch {
  orderId: string;
  providerStatus: ProviderStatus | "missing";
  currency: string;
  expectedStatus: string;
  foundStatus: string;
  expectedCredited: number;
  foundCredited: number;
  /** max(0, found - expected), minor units: money credited that the provider never settled. */
  overcredited: number;
  reason: string;
  /** The reason's code and parameters (lib/reasons/reason-codes.ts); absent on rows stored before codes. */
  reasonRef?: ReasonRef;
}

const EXPECTED_STATUS: Record<ProviderStatus, string> = { approved: "paid", refunded: "refunded", none: "created" };

/**
 * Compares one order with the provider's view (seed article's reconciliation): `approved` expects paid
 * with credited = settled amount; `refunded` expects refunded with credited 0; `none` (or an order the
 * settlement does not list) expects created with credited 0. A missing order is a mismatch unless the
 * provider has nothing either. Returns the mismatch, or null when the books agree.
 */
export function compareOrder(
  orderId: string,
  settlement: { providerStatus: ProviderStatus; amount: number; currency: string } | null,
  found: FoundOrder | null,
): Mismatch | null {
  const providerStatus = settlement?.providerStatus ?? "none";
  const expectedStatus = EXPECTED_STATUS[providerStatus];
  const expectedCredited = providerStatus === "approved" ? settlement!.amount : 0;
  const currency = settlement?.currency ?? found?.currency ?? "";
  if (!found) {
    if (providerStatus === "none") return null;
    return { orderId, providerStatus, currency, expectedStatus, foundStatus: "missing", expectedCredited, foundCredited: 0, overcredited: 0, ...because("recon_order_missing", {}) };
  }
  const reasons: ReasonRef[] = [];
  if (settlement && found.currency.toUpperCase() !== settlement.currency.toUpperCase()) reasons.push(reasonRef("recon_currency", { found: found.currency, settled: settlement.currency }));
  if (found.status !== expectedStatus) reasons.push(reasonRef("recon_status", { found: found.status, expected: expectedStatus }));
  if (found.credited !== expectedCredited) reasons.push(reasonRef("recon_credited", { found: { amount: found.credited, currency: found.currency }, expected: { amount: expectedCredited, currency: found.currency } }));
  if (!settlement && reasons.length > 0) reasons.unshift(reasonRef("recon_not_in_settlement", {}));
  if (reasons.length === 0) return null;
  const [first, ...rest] = reasons;
  const ref: ReasonRef = rest.length > 0 ? { ...first, then: rest } : first;
  return {
    orderId,
    providerStatus: settlement ? providerStatus : "missing",
    currency: found.currency,
    expectedStatus,
    foundStatus: found.status,
    expectedCredited,
    foundCredited: found.credited,
    overcredited: Math.max(0, found.credited - expectedCredited),
    reason: reasonText(ref),
    reasonRef: ref,
  };
}

/** Sums over-credited minor units per currency. */
export function overcreditedByCurrency(mismatches: Mismatch[]): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const mismatch of mismatches) totals[mismatch.currency] = (totals[mismatch.currency] ?? 0) + mismatch.overcredited;
  return totals;
}
