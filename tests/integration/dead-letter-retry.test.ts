import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { listDeadLetters } from "@/lib/dead-letters/list-dead-letters";
import { retryDeadLetter } from "@/lib/triage/retry-dead-letter";
import { InboxWorker } from "@/lib/inbox/inbox-worker";
import { createOrder, deliverLab, labEvent, readOrder } from "@/e2e/support/http";
import { runMain } from "@/e2e/support/cli";
import { main as deadLettersCli } from "@/scripts/dead-letters";
const DEFAULT_ORG = "org_default";

const policy = { baseDelayMs: 60_000, maxDelayMs: 600_000, maxAttempts: 1, maxAgeSeconds: 86_400 };
const worker = () => new InboxWorker(db, { policy });

function inline(): void {
  process.env.LAB_PROCESSING_MODE = "inline";
}
function inbox(): void {
  process.env.LAB_PROCESSING_MODE = "inbox";
}

async function letterOf(eventId: string) {
  return (await db()).deadLetter.findFirstOrThrow({ where: { eventId } });
}

/** `npm run dead-letters` in this process (its main); what its process shows on a pipe is e2e/http/dead-letters-terminal.test.ts. */
const cli = (args: string[]) => runMain(deadLettersCli, args, process.env);

before(async () => {
  for (const [id, amount] of [["ord_i1", 1500000], ["ord_i2", 1200000], ["ord_x1", 900000], ["ord_cli", 800000]] as const) {
    assert.equal((await createOrder(id, amount)).status, 201);
  }
});
after(closeDb);

describe("retrying dead letters", () => {
  test("an inline-mode dead letter (refund before approval) re-runs its stored event once the approval landed; twice is a no-op", async () => {
    inline();
    const refund = await deliverLab(labEvent("evt_i1r", "payment.refunded", "ord_i1", "pay_i1", 1500000));
    assert.equal(refund.status, 409);
    const letter = await letterOf("evt_i1r");
    assert.equal(await (await db()).webhookEvent.count({ where: { eventId: "evt_i1r" } }), 0, "the inline failure rolled the event back");
    const early = await retryDeadLetter(await db(), DEFAULT_ORG, letter.id, "test");
    assert.equal(early.outcome, "dead_lettered");
    assert.equal((await letterOf("evt_i1r")).attempts, 2);

    assert.equal((await deliverLab(labEvent("evt_i1a", "payment.approved", "ord_i1", "pay_i1", 1500000))).json.outcome, "applied");
    const retried = await retryDeadLetter(await db(), DEFAULT_ORG, letter.id, "test");
    assert.equal(retried.outcome, "applied");
    assert.equal(retried.reason, "refunded 1500000 ARS (total 1500000); order ord_i1 paid -> refunded; dead letter resolved");
    const resolved = await letterOf("evt_i1r");
    assert.equal(resolved.status, "resolved");
    assert.equal(resolved.resolvedBy, "system");
    assert.deepEqual(await retryDeadLetter(await db(), DEFAULT_ORG, letter.id, "test"), {
      id: letter.id,
      outcome: "already_resolved",
      reason: "dead letter already resolved: applied on a later attempt (applied)",
      reasonRef: { code: "retry_already_resolved_as", params: { status: "resolved", resolution: { code: "applied_later", params: { outcome: "applied" } } } },
    });
    const order = await readOrder("ord_i1");
    assert.equal(order.status, "refunded");
    assert.equal(order.ledger.length, 2);
  });

  test("two retries of one dead letter at the same time apply it once", async () => {
    inline();
    assert.equal((await deliverLab(labEvent("evt_i2r", "payment.refunded", "ord_i2", "pay_i2", 1200000))).status, 409);
    assert.equal((await deliverLab(labEvent("evt_i2a", "payment.approved", "ord_i2", "pay_i2", 1200000))).json.outcome, "applied");
    const id = (await letterOf("evt_i2r")).id;
    const both = await Promise.all([retryDeadLetter(await db(), DEFAULT_ORG, id, "a"), retryDeadLetter(await db(), DEFAULT_ORG, id, "b")]);
    assert.deepEqual(both.map((result) => result.outcome).sort(), ["applied", "duplicate"]);
    const order = await readOrder("ord_i2");
    assert.deepEqual(order.ledger.map((entry) => entry.businessKey), ["credit:lab:lab:live:pay_i2", "refund:lab:lab:live:pay_i2:total:1200000:at:1760181330"]);
    assert.equal(await (await db()).decision.count({ where: { eventId: "evt_i2r", outcome: "applied" } }), 1);
  });

  test("an inbox dead letter is re-queued and applied by the worker, which resolves it", async () => {
    inbox();
    await deliverLab(labEvent("evt_x1", "payment.approved", "ord_x1_later", "pay_x1", 900000));
    assert.equal((await worker().runOnce())?.kind, "dead_lettered");
    const letter = await letterOf("evt_x1");
    assert.equal(letter.category, "retries_exhausted");
    assert.equal(letter.attempts, 1);

    // Still unknown: re-queued, fails again, the same dead letter counts one more attempt.
    assert.equal((await retryDeadLetter(await db(), DEFAULT_ORG, letter.id, "ops")).outcome, "requeued");
    const row = await (await db()).webhookEvent.findFirstOrThrow({ where: { eventId: "evt_x1" } });
    assert.equal(row.status, "received");
    assert.equal(row.attempts, 0);
    assert.deepEqual(await retryDeadLetter(await db(), DEFAULT_ORG, letter.id, "ops"), {
      id: letter.id,
      outcome: "requeued",
      reason: "event evt_x1 is already queued (status received)",
      reasonRef: { code: "retry_already_queued", params: { eventId: "evt_x1", status: "received" } },
    });
    assert.equal((await worker().runOnce())?.kind, "dead_lettered");
    assert.equal((await letterOf("evt_x1")).attempts, 2);
    assert.equal((await letterOf("evt_x1")).owner, "ops");

    assert.equal((await createOrder("ord_x1_later", 900000)).status, 201);
    assert.equal((await retryDeadLetter(await db(), DEFAULT_ORG, letter.id, "ops")).outcome, "requeued");
    assert.deepEqual((await worker().drain()).map((result) => result.kind), ["applied"]);
    assert.equal((await letterOf("evt_x1")).status, "resolved");
    assert.equal((await readOrder("ord_x1_later")).credited, 900000);
    assert.equal((await retryDeadLetter(await db(), DEFAULT_ORG, letter.id, "ops")).outcome, "already_resolved");
  });

  test("a conflict is not retried", async () => {
    inbox();
    await deliverLab(labEvent("evt_k1", "payment.approved", "ord_x1", "pay_k1", 900000));
    assert.equal((await deliverLab(labEvent("evt_k1", "payment.approved", "ord_x1", "pay_k1", 1))).status, 409);
    const result = await retryDeadLetter(await db(), DEFAULT_ORG, (await letterOf("evt_k1")).id, "ops");
    assert.equal(result.outcome, "not_retryable");
    assert.equal((await letterOf("evt_k1")).status, "open");
    assert.deepEqual((await worker().drain()).map((entry) => entry.kind), ["applied"]);
  });

  test("retry --all retries every open dead letter and counts the outcomes", async () => {
    const open = await listDeadLetters(await db(), DEFAULT_ORG);
    assert.deepEqual(open.map((letter) => letter.eventId), ["evt_k1"]);
    inline();
    assert.equal((await deliverLab(labEvent("evt_all", "payment.refunded", "ord_cli", "pay_cli", 800000))).status, 409);
    // An amount mismatch is review-first: --all leaves it unless the operator confirms.
    assert.equal((await createOrder("ord_all_amount", 500000)).status, 201);
    assert.equal((await deliverLab(labEvent("evt_all_amount", "payment.approved", "ord_all_amount", "pay_all_amount", 400000))).status, 422);
    const all = await cli(["retry", "--all"]);
    assert.equal(all.code, 1, all.stderr);
    const lines = all.stdout.trim().split("\n");
    assert.deepEqual(lines.map((line) => line.split("  ")[1]).slice(0, 3), ["not_retryable", "dead_lettered", "review_first"]);
    assert.deepEqual(lines.slice(3), [
      "retried 3 dead letters: not_retryable 1, dead_lettered 1, review_first 1",
      "review-first dead letters were left as they are: retry them with --confirm-review-first once the order is corrected",
    ]);
    const amount = await letterOf("evt_all_amount");
    assert.equal(amount.attempts, 1);
    // Each retry that ran is audited under the operator's name; the review-first one ran nothing.
    const audits = await (await db()).auditEntry.findMany({ where: { action: "dead_letter.retry" }, select: { actorEmail: true, targetId: true, noteCode: true } });
    assert.equal(audits.length, 2);
    assert.ok(audits.every((row) => row.actorEmail.startsWith("cli") && row.noteCode === "audit_retry"), JSON.stringify(audits));
    assert.equal(audits.some((row) => row.targetId === amount.id), false);

    const confirmed = await cli(["retry", amount.id, "--confirm-review-first"]);
    assert.equal(confirmed.code, 1);
    assert.match(confirmed.stdout, new RegExp(`^${amount.id}  dead_lettered  `));
    assert.equal((await letterOf("evt_all_amount")).attempts, 2);
    assert.equal(await (await db()).auditEntry.count({ where: { action: "dead_letter.retry", targetId: amount.id } }), 1);
    await (await db()).deadLetter.update({ where: { id: amount.id }, data: { status: "resolved", resolution: "refunded by hand", resolvedBy: "ops", resolvedAt: new Date() } });
  });

  test("the CLI lists dead letters and retries one by id (exit codes 0, 1, 2)", async () => {
    inline();
    const listed = await cli(["list"]);
    assert.equal(listed.code, 0, listed.stderr);
    const lines = listed.stdout.trim().split("\n");
    assert.equal(lines.at(-1), "2 open dead letters");
    assert.equal(lines.filter((line) => line.includes("lab:evt_all")).length, 1);
    assert.match(listed.stdout, /next action: wait for the missing transition \(e\.g\. the approval\), then retry/);
    const listedEs = await cli(["list", "--locale", "es-AR"]);
    assert.equal(listedEs.stdout.trim().split("\n").at(-1), "2 eventos retenidos abiertos");
    assert.match(listedEs.stdout, /^\S+ {2}abierto {2}falta una transición {2}intentos=\d+ {2}primero=\S+ {2}último=\S+ {2}lab:evt_all {2}orden=ord_\S+ {2}responsable=-$/m);
    assert.equal((await cli(["list", "--all", "--locale", "es-AR"])).stdout.trim().split("\n").at(-1), `${(await cli(["list", "--all"])).stdout.trim().split("\n").at(-1)?.split(" ")[0]} eventos retenidos`);

    const letter = await letterOf("evt_all");
    const failed = await cli(["retry", letter.id]);
    assert.equal(failed.code, 1);
    assert.equal(failed.stdout, `${letter.id}  dead_lettered  order ord_cli (created) cannot be refunded: payment pay_cli was never credited\n`);
    const failedEs = await cli(["retry", letter.id, "--locale", "es-AR"]);
    assert.equal(failedEs.code, 1);
    assert.equal(failedEs.stdout, `${letter.id}  dead_lettered  la orden ord_cli (creada) no se puede reembolsar: el pago pay_cli nunca se acreditó\n`);

    assert.equal((await deliverLab(labEvent("evt_cli_a", "payment.approved", "ord_cli", "pay_cli", 800000))).json.outcome, "applied");
    // stdout is the result line alone (scripts read it); that the process's log lines go to stderr on a
    // pipe, never to stdout, is e2e/http/dead-letters-terminal.test.ts.
    const applied = await cli(["retry", letter.id]);
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(applied.stdout.replaceAll("\u00a0", " "), `${letter.id}  applied  refunded ARS 8,000.00 (total ARS 8,000.00); order ord_cli paid → refunded; dead letter resolved\n`);
    assert.equal((await readOrder("ord_cli")).status, "refunded");
    // The resolved list says how, by whom (the command's user) and when.
    const resolved = (await cli(["list", "--resolved"])).stdout.split("\n");
    const at = resolved.findIndex((line) => line.startsWith(`${letter.id}  resolved`));
    assert.match(resolved[at + 2], /^ {4}resolution: applied on a later attempt \(applied\) \(by \S+ \(command line\), \d{4}-\d{2}-\d{2}T[\d:.]+Z\)$/);

    // An event id from a provider's body cannot drive the terminal: its escape sequences print escaped.
    assert.equal((await deliverLab(labEvent("evt_\u001b]0;PWNED\u0007\u001b[2J", "payment.refunded", "ord_\u001b[1A\u001b[2Kfake", "pay_esc", 100))).status, 409);
    const hostile = await cli(["list"]);
    assert.equal(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(hostile.stdout), false, JSON.stringify(hostile.stdout));
    assert.match(hostile.stdout, /lab:evt_\\x1b\]0;PWNED\\x07\\x1b\[2J {2}order=ord_\\x1b\[1A\\x1b\[2Kfake/);
    assert.equal((await cli(["retry", "no_such_id"])).code, 2);
    assert.equal((await cli(["frobnicate"])).code, 2);
    const json = JSON.parse((await cli(["list", "--all", "--json"])).stdout);
    assert.equal(json.count, 7);
  });
});
