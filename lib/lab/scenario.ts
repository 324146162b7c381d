import { LAB_ORDERS } from "@/lib/demo/lab-orders";
import type { SettlementRow } from "@/lib/reconciliation/settlement-csv";

/** Who sends a lab delivery: the provider (retries non-2xx) or an attacker (never retries). */
export type Sender = "provider" | "attacker";

/** One delivery of the lab scenario, in simulated time (seconds since the lab started). */
export interface LabStep {
  scenario: 1 | 2 | 3 | 4 | 5;
  atSeconds: number;
  /** What the delivery is, as a message of the catalogue (`reasons.lab.step.<key>`, ICU `values`), printed in the CLI's locale. */
  what: { key: "approval" | "sameAgain" | "twoAtOnce" | "forged" | "refundBefore" | "replay"; values: Record<string, string> };
  sender: Sender;
  event: { id: string; type: "payment.approved" | "payment.refunded"; orderId: string; paymentId: string; amount: number };
  /** Seconds to shift the signed timestamp by (a 3-day-old request: -259200). */
  signedOffsetSeconds?: number;
  /** Sign with a key that is not the provider's. */
  forged?: boolean;
  /** Send this many identical requests at the same moment. */
  concurrent?: number;
}

const amountOf = (orderId: string) => LAB_ORDERS.find((order) => order.id === orderId)!.amount;
const approve = (id: string, orderId: string, paymentId: string) => ({ id, type: "payment.approved" as const, orderId, paymentId, amount: amountOf(orderId) });
const THREE_DAYS_SECONDS = 3 * 24 * 3600;

/** The seed article's five deliveries that go wrong in production, in the order they happen. */
export const LAB_STEPS: LabStep[] = [
  { scenario: 1, atSeconds: 0, what: { key: "approval", values: { orderId: "ord_1041" } }, sender: "provider", event: approve("evt_0001", "ord_1041", "pay_0001") },
  { scenario: 1, atSeconds: 30, what: { key: "sameAgain", values: {} }, sender: "provider", event: approve("evt_0001", "ord_1041", "pay_0001") },
  { scenario: 2, atSeconds: 40, what: { key: "twoAtOnce", values: { orderId: "ord_1042" } }, sender: "provider", event: approve("evt_0002", "ord_1042", "pay_0002"), concurrent: 2 },
  { scenario: 3, atSeconds: 50, what: { key: "approval", values: { orderId: "ord_1043" } }, sender: "provider", event: approve("evt_0003", "ord_1043", "pay_0003") },
  { scenario: 4, atSeconds: 60, what: { key: "forged", values: { orderId: "ord_1044" } }, sender: "attacker", event: approve("evt_9999", "ord_1044", "pay_9999"), forged: true },
  { scenario: 5, atSeconds: 70, what: { key: "refundBefore", values: { orderId: "ord_1045" } }, sender: "provider", event: { id: "evt_0005", type: "payment.refunded", orderId: "ord_1045", paymentId: "pay_0004", amount: amountOf("ord_1045") } },
  { scenario: 5, atSeconds: 80, what: { key: "approval", values: { orderId: "ord_1045" } }, sender: "provider", event: approve("evt_0004", "ord_1045", "pay_0004") },
  {
    scenario: 3,
    atSeconds: 50 + THREE_DAYS_SECONDS,
    what: { key: "replay", values: { eventId: "evt_0003", days: "3" } },
    sender: "attacker",
    event: approve("evt_0003", "ord_1043", "pay_0003"),
    signedOffsetSeconds: -THREE_DAYS_SECONDS,
  },
];

/** The seed article's first event time (unix seconds): event bodies are the same on every lab run. */
export const LAB_EPOCH_SECONDS = 1_760_181_330;

/** Simulated seconds before the provider retries a non-2xx delivery: 60 s, 120 s, 240 s. */
export const PROVIDER_RETRY_DELAYS_SECONDS = [60, 120, 240];

/** The provider's settlement for the lab: what really happened at the provider. */
export const LAB_SETTLEMENT: Omit<SettlementRow, "line">[] = [
  { orderId: "ord_1041", providerStatus: "approved", amount: 2_500_000, currency: "ARS" },
  { orderId: "ord_1042", providerStatus: "approved", amount: 1_850_000, currency: "ARS" },
  { orderId: "ord_1043", providerStatus: "approved", amount: 4_200_000, currency: "ARS" },
  { orderId: "ord_1044", providerStatus: "none", amount: 0, currency: "ARS" },
  { orderId: "ord_1045", providerStatus: "refunded", amount: 1_500_000, currency: "ARS" },
];

/**
 * The lab event body exactly as the lab provider serialises it. `created` is the event's own creation
 * time (its first delivery), so every redelivery of one event carries the same bytes.
 */
export function labBody(step: LabStep, labStartUnixSeconds: number = LAB_EPOCH_SECONDS): string {
  const { id, type, orderId, paymentId, amount } = step.event;
  const firstSeconds = Math.min(...LAB_STEPS.filter((other) => other.event.id === id).map((other) => other.atSeconds));
  return JSON.stringify({ id, type, created: labStartUnixSeconds + firstSeconds, data: { payment_id: paymentId, order_id: orderId, amount, currency: "ARS" } });
}

/** Formats simulated seconds as +Ns / +Nm / +Nd for the lab's output. */
export function formatSimTime(seconds: number): string {
  if (seconds >= 86_400) return `+${(seconds / 86_400).toFixed(0)}d`;
  if (seconds >= 60) return `+${Math.floor(seconds / 60)}m${seconds % 60 ? `${seconds % 60}s` : ""}`;
  return `+${seconds}s`;
}
