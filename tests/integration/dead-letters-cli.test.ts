import "@/e2e/support/test-env";
// `npm run dead-letters` as an operator meets it: every refusal exits non-zero (a script must not read
// "not_retryable" as done). The command's main runs in this process; what a terminal or a pipe shows of
// its log lines is e2e/http/dead-letters-terminal.test.ts, where the process is the subject.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { createOrder, deliverLab, labEvent } from "@/e2e/support/http";
import { runMain } from "@/e2e/support/cli";
import { main } from "@/scripts/dead-letters";

const cli = (args: string[]) => runMain(main, args, process.env);

const letterOf = async (eventId: string) => (await db()).deadLetter.findFirstOrThrow({ where: { eventId } });

before(async () => {
  process.env.LAB_PROCESSING_MODE = "inline";
  for (const [id, amount] of [["ord_dlc_conflict", 500000], ["ord_dlc_review", 700000]] as const) assert.equal((await createOrder(id, amount)).status, 201);
});
after(closeDb);

test("a retry refused as not retryable exits 1, its line in English or es-AR", async () => {
  assert.equal((await deliverLab(labEvent("evt_dlc_c", "payment.approved", "ord_dlc_conflict", "pay_dlc_c", 500000))).status, 200);
  // The same event id with another body: a conflict, which a person settles.
  assert.equal((await deliverLab(labEvent("evt_dlc_c", "payment.approved", "ord_dlc_conflict", "pay_dlc_c", 400000))).status, 409);
  const letter = await letterOf("evt_dlc_c");
  assert.deepEqual(await cli(["retry", letter.id]), { code: 1, stdout: `${letter.id}  not_retryable  a conflict is not retried: compare both bodies with the provider; the stored event was kept\n`, stderr: "" });
  assert.deepEqual(await cli(["retry", letter.id, "--locale", "es-AR"]), {
    code: 1,
    stdout: `${letter.id}  not_retryable  un conflicto no se reintenta: compará ambos cuerpos con el proveedor; se conservó el evento guardado\n`,
    stderr: "",
  });
});

test("the demo's inline dead letter retried without ACREDITA_MODE=demo (its endpoint not configured here): not_retryable, exit 1, saying what to do", async () => {
  assert.equal((await createOrder("ord_dlc_gone", 300000)).status, 201);
  assert.equal((await deliverLab(labEvent("evt_dlc_g", "payment.refunded", "ord_dlc_gone", "pay_dlc_g", 300000))).status, 409);
  const letter = await letterOf("evt_dlc_g");
  // As on a production shell: no lab secret set, so the lab endpoint does not exist in the CLI's process
  // (a retry resolves the endpoint from its process's environment, as every process that applies events does).
  const secrets = process.env.LAB_WEBHOOK_SECRET;
  process.env.LAB_WEBHOOK_SECRET = "";
  try {
    assert.deepEqual(await cli(["retry", letter.id]), {
      code: 1,
      stdout: `${letter.id}  not_retryable  endpoint lab is not configured for lab/lab in this process: set its signing secret, or run with ACREDITA_MODE=demo against the demo's database\n`,
      stderr: "",
    });
  } finally {
    process.env.LAB_WEBHOOK_SECRET = secrets;
  }
  await (await db()).deadLetter.update({ where: { id: letter.id }, data: { status: "resolved", resolution: "settled by hand", resolvedBy: "ops", resolvedAt: new Date() } });
});

test("a review-first dead letter retried without --confirm-review-first exits 1, and so does retry --all", async () => {
  assert.equal((await deliverLab(labEvent("evt_dlc_r", "payment.approved", "ord_dlc_review", "pay_dlc_r", 600000))).status, 422);
  const letter = await letterOf("evt_dlc_r");
  const single = await cli(["retry", letter.id]);
  assert.equal(single.code, 1);
  assert.match(single.stdout, new RegExp(`^${letter.id}  review_first  `));
  const all = await cli(["retry", "--all"]);
  assert.equal(all.code, 1);
  assert.deepEqual(all.stdout.trim().split("\n").slice(-2), [
    "retried 2 dead letters: not_retryable 1, review_first 1",
    "review-first dead letters were left as they are: retry them with --confirm-review-first once the order is corrected",
  ]);
  await (await db()).deadLetter.updateMany({ where: { eventId: { in: ["evt_dlc_c", "evt_dlc_r"] } }, data: { status: "resolved", resolution: "settled by hand", resolvedBy: "ops", resolvedAt: new Date() } });
});
