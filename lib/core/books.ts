// What the core's decisions read of the books: the shapes the persistence modules (lib/ledger,
// lib/orders) return, declared here so the pure core depends on no database module.
import type { LedgerKind } from "@/lib/core/business-keys";

/** An order as the core's decisions read it (amounts in minor units of `currency`). */
export interface OrderRow {
  id: string;
  status: string;
  amount: number;
  currency: string;
  refundedAmount: number;
  /** Minor units withdrawn by a dispute and not reinstated. */
  disputedAmount: number;
  livemode: boolean;
}

/** A ledger entry of a payment as the core's decisions read it back (amount signed, minor units; `occurredAt` unix seconds). */
export interface PaymentEntry {
  businessKey: string;
  kind: LedgerKind;
  amount: number;
  occurredAt: number | null;
}

/** An absolute refunded total a provider reported (minor units) and its time (unix seconds; null when not given). */
export interface RefundSnapshotFact {
  total: number;
  at: number | null;
}

/** A refund object known for a payment: its id, amount (minor units) and creation time (unix seconds; null when not given). */
export interface RefundObjectFact {
  refundId: string;
  amount: number;
  createdAt: number | null;
}
