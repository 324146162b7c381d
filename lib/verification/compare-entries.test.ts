import assert from "node:assert/strict";
import { test } from "node:test";
import type { OrderLedgerEntry } from "@/lib/ledger/bookings";
import { compareEntries } from "@/lib/verification/rebuild-orders";

const entry = (businessKey: string, amount: number, eventId: string, currency = "ARS"): OrderLedgerEntry => ({ businessKey, kind: businessKey.split(":")[0], amount, currency, eventId, provider: "lab", account: "lab", livemode: true, paymentKey: "pay_1" });

test("the books against a rebuild: an entry missing, an extra one, another amount or currency, each with its events; equal books differ in nothing", () => {
  const books = [entry("credit:p1", 1_000, "evt_1"), entry("refund:p1:a", -300, "evt_2"), entry("refund:p1:forged", -50, "evt_x"), entry("refund:p1:c", -10, "evt_4", "USD")];
  const rebuilt = [entry("credit:p1", 1_000, "evt_1"), entry("refund:p1:a", -200, "evt_2"), entry("refund:p1:b", -100, "evt_3"), entry("refund:p1:c", -10, "evt_4")];
  assert.deepEqual(compareEntries(books, rebuilt), [
    { kind: "amount", businessKey: "refund:p1:a", entryKind: "refund", currency: "ARS", books: -300, rebuilt: -200, eventIds: ["evt_2"] },
    { kind: "missing", businessKey: "refund:p1:b", entryKind: "refund", currency: "ARS", books: null, rebuilt: -100, eventIds: ["evt_3"] },
    { kind: "amount", businessKey: "refund:p1:c", entryKind: "refund", currency: "USD", books: -10, rebuilt: -10, eventIds: ["evt_4"] },
    { kind: "extra", businessKey: "refund:p1:forged", entryKind: "refund", currency: "ARS", books: -50, rebuilt: null, eventIds: ["evt_x"] },
  ]);
  assert.deepEqual(compareEntries(rebuilt, rebuilt), []);
});
