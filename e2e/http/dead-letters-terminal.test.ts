import "@/e2e/support/test-env";
// `npm run dead-letters` as a process, where the process is the subject: on a terminal its log lines read
// as lines, not JSON, between the command's own output (JSON on a pipe, or when asked with
// LOG_FORMAT=json). The logger picks its format from its process's file descriptors, so these run the
// script itself; the command's results are tests/integration/dead-letters-cli.test.ts, in process.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { createOrder, deliverLab, labEvent } from "@/e2e/support/http";

const skip = existsSync("/usr/bin/script") ? false : "no util-linux script for a pseudo-terminal";

/** Runs the command on a pipe, as a script reads it. */
function onPipe(args: string[], env: Record<string, string>) {
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
  assert.equal((await createOrder("ord_dlc_log", 900000)).status, 201);
});
after(closeDb);

test("on a terminal the log lines read as lines between the result; LOG_FORMAT=json asks for JSON", { skip }, async () => {
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
  // On a pipe (a script reading stderr), JSON as before, and stdout is the result line alone (scripts read it).
  const piped = onPipe(["retry", letter.id], { LOG_LEVEL: "info", LOG_FILE: "" });
  assert.match(piped.stderr, /^\{"level":30,.*"msg":"decision"/m);
  assert.deepEqual([piped.code, piped.stdout], [1, `${letter.id}  dead_lettered  order ord_dlc_log (created) cannot be refunded: payment pay_dlc_l was never credited\n`]);
});

test("on a terminal a retry's log line formats money by currency, never the stored minor units", { skip }, async () => {
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
