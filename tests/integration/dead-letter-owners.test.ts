import "@/e2e/support/test-env";
// The dead letters' owners, filters and audit names at the level the dashboard calls them: an
// assignment undone or handed to a colleague (never to a merchant or a stranger), the list filtered by
// reason, provider and owner, and the audit log naming each target by its event and order.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { listAuditPage } from "@/lib/audit/list-audit";
import { createUserWithPassword } from "@/lib/auth/users";
import type { Actor } from "@/lib/auth/roles";
import { closeDb, db } from "@/lib/db/client";
import { deadLetterFilterOptions, deadLetterQueryFromParams, listDeadLettersPage } from "@/lib/dead-letters/list-dead-letters";
import { assignDeadLetterAs, deadLetterAssignees } from "@/lib/triage/manage-dead-letters";
import { createOrder, deliverLab, labEvent } from "@/e2e/support/http";
const DEFAULT_ORG = "org_default";

const support: Actor = { id: "u_support", email: "owners-support@shop.test", name: "S", role: "support", organizationId: "org_default" };
const PASSWORD = "a-long-enough-passphrase-for-tests-1";

const letterOf = async (eventId: string) => (await db()).deadLetter.findFirstOrThrow({ where: { eventId } });

before(async () => {
  for (const [email, role] of [["owners-support@shop.test", "support"], ["owners-admin@shop.test", "admin"], ["owners-merchant@shop.test", "merchant"]] as const) {
    await createUserWithPassword(await db(), { email, name: role, role, password: PASSWORD });
  }
  assert.equal((await createOrder("ord_own_1", 100_000)).status, 201);
  assert.equal((await createOrder("ord_own_2", 100_000)).status, 201);
  assert.equal((await deliverLab(labEvent("evt_own_early", "payment.refunded", "ord_own_1", "pay_own_1", 100_000))).status, 409);
  assert.equal((await deliverLab(labEvent("evt_own_amount", "payment.approved", "ord_own_2", "pay_own_2", 90_000))).status, 422);
});
after(closeDb);

test("an assignment is handed to a colleague, then undone; never to a merchant or an unknown address; each audited with the owner before", async () => {
  const client = await db();
  const letter = await letterOf("evt_own_early");
  assert.deepEqual(await deadLetterAssignees(client, DEFAULT_ORG), ["owners-admin@shop.test", "owners-support@shop.test"]);
  assert.equal(await assignDeadLetterAs(client, support, letter.id), "assigned");
  assert.equal(await assignDeadLetterAs(client, support, letter.id, "owners-merchant@shop.test"), "not_a_colleague");
  assert.equal(await assignDeadLetterAs(client, support, letter.id, "nobody@shop.test"), "not_a_colleague");
  assert.equal((await letterOf("evt_own_early")).owner, "owners-support@shop.test");
  assert.equal(await assignDeadLetterAs(client, support, letter.id, "owners-admin@shop.test"), "assigned");
  assert.equal((await letterOf("evt_own_early")).owner, "owners-admin@shop.test");
  assert.equal(await assignDeadLetterAs(client, support, letter.id, null), "assigned");
  assert.equal((await letterOf("evt_own_early")).owner, null);
  const audit = await client.auditEntry.findMany({ where: { targetId: letter.id }, orderBy: [{ at: "asc" }, { id: "asc" }], select: { action: true, note: true, noteCode: true } });
  assert.deepEqual(audit, [
    { action: "dead_letter.assign", note: "owner owners-support@shop.test", noteCode: "audit_owner" },
    { action: "dead_letter.assign", note: "owner owners-admin@shop.test (was owners-support@shop.test)", noteCode: "audit_owner_handed" },
    { action: "dead_letter.unassign", note: "unassigned (was owners-admin@shop.test)", noteCode: "audit_owner_cleared" },
  ]);
  assert.equal(await assignDeadLetterAs(client, support, "no-such-id"), "not_open");
});

test("the list filters by reason, provider and owner from the URL; a filter it cannot read is no filter", async () => {
  const client = await db();
  const ids = async (params: Record<string, string>) => (await listDeadLettersPage(client, DEFAULT_ORG, deadLetterQueryFromParams(params))).data.map((row) => row.eventId).filter((id) => id.startsWith("evt_own_")).sort();
  assert.deepEqual(await ids({}), ["evt_own_amount", "evt_own_early"]);
  assert.deepEqual(await ids({ category: "amount_mismatch" }), ["evt_own_amount"]);
  assert.deepEqual(await ids({ category: "transition", provider: "lab" }), ["evt_own_early"]);
  assert.deepEqual(await ids({ provider: "stripe" }), []);
  await assignDeadLetterAs(client, support, (await letterOf("evt_own_amount")).id);
  assert.deepEqual(await ids({ owner: "owners-support@shop.test" }), ["evt_own_amount"]);
  assert.deepEqual(await ids({ owner: "none" }), ["evt_own_early"]);
  assert.deepEqual(deadLetterQueryFromParams({ tab: "resolved", category: "  ", owner: "x".repeat(300) }), { page: 1, pageSize: 25, status: "resolved" });
  const options = await deadLetterFilterOptions(client, DEFAULT_ORG, "open");
  assert.deepEqual([options.categories.includes("amount_mismatch"), options.providers, options.owners], [true, ["lab"], ["owners-support@shop.test"]]);
  // A lab payment has no dashboard page to link.
  const [amount] = (await listDeadLettersPage(client, DEFAULT_ORG, deadLetterQueryFromParams({ category: "amount_mismatch" }))).data.filter((row) => row.eventId === "evt_own_amount");
  assert.deepEqual([amount.paymentKey, amount.paymentLink], ["pay_own_2", null]);
});

test("the audit log names a dead letter by its provider, event and order, not its internal id", async () => {
  const page = await listAuditPage(await db(), DEFAULT_ORG, { page: 1, pageSize: 100, action: "dead_letter.unassign" });
  assert.deepEqual(
    page.data.map((row) => row.named),
    [{ provider: "lab", eventId: "evt_own_early", orderId: "ord_own_1" }],
  );
  // Searched by the ids people have: the order, the event, a payment-less miss.
  const search = async (target: string) => (await listAuditPage(await db(), DEFAULT_ORG, { page: 1, pageSize: 100, target })).data.map((row) => [row.action, row.named?.eventId]);
  assert.deepEqual(await search("ord_own_1"), [
    ["dead_letter.unassign", "evt_own_early"],
    ["dead_letter.assign", "evt_own_early"],
    ["dead_letter.assign", "evt_own_early"],
  ]);
  assert.deepEqual(await search("evt_own_amount"), [["dead_letter.assign", "evt_own_amount"]]);
  assert.deepEqual(await search("ord_nobody"), []);
});
