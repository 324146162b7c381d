import "@/e2e/support/test-env";
// `npm run dead-letters` as an operator meets it: every refusal exits non-zero (a script must not read
// "not_retryable" as done), and on a terminal the log lines read as lines, not JSON, between the
// command's own output (JSON on a pipe, or when asked with LOG_FORMAT=json).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { createOrder, deliverLab, labEvent } from "@/e2e/support/http";

function cli(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ["--import", "tsx", "scripts/dead-letters.ts", ...args], { env: { ...process.env, LOG_LEVEL: "silent", ...env }, encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs the command on a pseudo-terminal (util-linux `script`), as an operator types it; returns its exit status and what the terminal showed, lines without \r. */
function onTerminal(args: string[], env: Record<string, string>) {
  const command = [process.execPath, "--import", "tsx", "scripts/dead-letters.ts", ...args].join(" ");
  const result = spawnSync("script", ["-qec", command, "/dev/null"], { env: { ...process.env, ...env }, encoding: "utf8" });
  return { code: result.status, lines: result.stdout.replaceAll("\r", "").split("\n").filter(Boolean) };
}

const letterOf = async (eventId: string) => (await db()).deadLetter.findFirstOrThrow({ where: { eventId } });

before(async () => {
  process.env.LAB_PROCESSING_MODE = "inline";
  for (const [id, amount] of [["ord_dlc_conflict", 500000], ["ord_dlc_review", 700000], ["ord_dlc_log", 900000]] as const) assert.equal((await createOrder(id, amount)).status, 201);
});
after(closeDb);

test("a retry refused as not retryable exits 1, its line in English or es-AR", async () => {
  assert.equal((await deliverLab(labEvent("evt_dlc_c", "payment.approved", "ord_dlc_conflict", "pay_dlc_c", 500000))).status, 200);
  // The same event id with another body: a conflict, which a person settles.
  assert.equal((await deliverLab(labEvent("evt_dlc_c", "payment.approved", "ord_dlc_conflict", "pay_dlc_c", 400000))).status, 409);
  const letter = await letterOf("evt_dlc_c");
  assert.deepEqual(cli(["retry", letter.id]), { code: 1, stdout: `${letter.id}  not_retryable  a conflict is not retried: compare both bodies with the provider; the stored event was kept\n`, stderr: "" });
  assert.deepEqual(cli(["retry", letter.id, "--locale", "es-AR"]), {
    code: 1,
    stdout: `${letter.id}  not_retryable  un conflicto no se reintenta: compará ambos cuerpos con el proveedor; se conservó el evento guardado\n`,
    stderr: "",
  });
});

test("the demo's inline dead letter retried without ACREDITA_MODE=demo (its endpoint not configured here): not_retryable, exit 1, saying what to do", async () => {
  assert.equal((await createOrder("ord_dlc_gone", 300000)).status, 201);
  assert.equal((await deliverLab(labEvent("evt_dlc_g", "payment.refunded", "ord_dlc_gone", "pay_dlc_g", 300000))).status, 409);
  const letter = await letterOf("evt_dlc_g");
  // As on a production shell: no lab secret set, so the lab endpoint does not exist in the CLI's process.
  assert.deepEqual(cli(["retry", letter.id], { LAB_WEBHOOK_SECRET: "" }), {
    code: 1,
    stdout: `${letter.id}  not_retryable  endpoint lab is not configured for lab/lab in this process: set its signing secret, or run with ACREDITA_MODE=demo against the demo's database\n`,
    stderr: "",
  });
  await (await db()).deadLetter.update({ where: { id: letter.id }, data: { status: "resolved", resolution: "settled by hand", resolvedBy: "ops", resolvedAt: new Date() } });
});

test("a review-first dead letter retried without --confirm-review-first exits 1, and so does retry --all", async () => {
  assert.equal((await deliverLab(labEvent("evt_dlc_r", "payment.approved", "ord_dlc_review", "pay_dlc_r", 600000))).status, 422);
  const letter = await letterOf("evt_dlc_r");
  const single = cli(["retry", letter.id]);
  assert.equal(single.code, 1);
  assert.match(single.stdout, new RegExp(`^${letter.id}  review_first  `));
  const all = cli(["retry", "--all"]);
  assert.equal(all.code, 1);
  assert.deepEqual(all.stdout.trim().split("\n").slice(-2), [
    "retried 2 dead letters: not_retryable 1, review_first 1",
    "review-first dead letters were left as they are: retry them with --confirm-review-first once the order is corrected",
  ]);
  await (await db()).deadLetter.updateMany({ where: { eventId: { in: ["evt_dlc_c", "evt_dlc_r"] } }, data: { status: "resolved", resolution: "settled by hand", resolvedBy: "ops", resolvedAt: new Date() } });
});

test("on a terminal the log lines read as lines between the result; LOG_FORMAT=json asks for JSON", { skip: existsSync("/usr/bin/script") ? false : "no util-linux script for a pseudo-terminal" }, async () => {
  assert.equal((await deliverLab(labEvent("evt_dlc_l", "payment.refunded", "ord_dlc_log", "pay_dlc_l", 900000))).status, 409);
  const letter = await letterOf("evt_dlc_l");
  const failed = onTerminal(["retry", letter.id], { LOG_LEVEL: "info", LOG_FILE: "" });
  assert.equal(failed.code, 1, failed.lines.join("\n"));
  assert.deepEqual(failed.lines.filter((line) => line.startsWith("{")), [], "no JSON line on the terminal");
  assert.match(failed.lines[0], /^\d\d:\d\d:\d\d INFO  decision provider=lab endpoint=lab eventId=evt_dlc_l .*outcome=dead_lettered httpStatus=409 /);
  assert.equal(failed.lines.at(-1), `${letter.id}  dead_lettered  order ord_dlc_log (created) cannot be refunded: payment pay_dlc_l was never credited`);
  const asked = onTerminal(["retry", letter.id], { LOG_LEVEL: "info", LOG_FILE: "", LOG_FORMAT: "json" });
  assert.equal(asked.code, 1);
  assert.match(asked.lines[0], /^\{"level":30,"time":\d+,"service":"acredita","decision":\{.*"eventId":"evt_dlc_l"/);
  // On a pipe (a script reading stderr), JSON as before.
  assert.match(cli(["retry", letter.id], { LOG_LEVEL: "info", LOG_FILE: "" }).stderr, /^\{"level":30,.*"msg":"decision"/m);
});

test("on a terminal a retry's log line formats money by currency, never the stored minor units", { skip: existsSync("/usr/bin/script") ? false : "no util-linux script for a pseudo-terminal" }, async () => {
  // The refund above waited for its payment: approve it, then the retry applies the refund.
  assert.equal((await deliverLab(labEvent("evt_dlc_la", "payment.approved", "ord_dlc_log", "pay_dlc_l", 900000))).status, 200);
  const letter = await letterOf("evt_dlc_l");
  const applied = onTerminal(["retry", letter.id], { LOG_LEVEL: "info", LOG_FILE: "" });
  assert.equal(applied.code, 0, applied.lines.join("\n"));
  const decision = applied.lines.find((line) => / INFO {2}decision .*eventId=evt_dlc_l /.test(line));
  assert.ok(decision, applied.lines.join("\n"));
  assert.match(decision, / outcome=applied .*reason="refunded ARS 9,000\.00 \(total ARS 9,000\.00\); order ord_dlc_log paid → refunded; dead letter resolved" reasonCode=refunded/);
  assert.doesNotMatch(decision, /900000/);
});
