import { TEST_DB } from "@/e2e/support/test-env";
// npm run replay and npm run verify-books, called in process through their main(argv, env, io): what a
// terminal would show, and the exit status scripts read.
import assert from "node:assert/strict";
import { userInfo } from "node:os";
import { after, before, describe, test } from "node:test";
import type { CliMain } from "@/lib/background/cli-io";
import { runMain } from "@/e2e/support/cli";
import { closeDb, db } from "@/lib/db/client";
import { main as replay } from "@/scripts/replay";
import { main as verifyBooks } from "@/scripts/verify-books";
import { createOrder, deliverLab, labEvent, readOrder } from "@/e2e/support/http";

process.env.LAB_PROCESSING_MODE = "inline";

/** Runs a command's main in process on this file's database, in English unless told; returns its status and what it wrote. */
async function run(main: CliMain, args: string[], env: Record<string, string> = {}): Promise<{ status: number; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await runMain(main, args, { ...process.env, DATABASE_URL: TEST_DB.url, LANG: "en_US.UTF-8", ...env });
  return { status: code, stdout, stderr };
}

before(async () => {
  assert.equal((await deliverLab(labEvent("evt_cli_1", "payment.approved", "ord_cli_1", "pay_cli_1", 150_000))).status, 409);
  assert.equal((await createOrder("ord_cli_1", 150_000)).status, 201);
});
after(closeDb);

describe("npm run replay", () => {
  let id = "";

  test("preview prints each event and each order before and after, with the money; nothing is applied", async () => {
    const { status, stdout, stderr } = await run(replay, ["preview", "--reason", "unknown_order", "--order", "ord_cli_1"]);
    assert.equal(status, 0, stderr);
    const lines = stdout.trimEnd().split("\n");
    id = /^replay (\S+) previewed/.exec(lines[0])![1];
    assert.deepEqual(lines, [
      `replay ${id} previewed: 1 event, 1 order; nothing was applied`,
      "#1 lab evt_cli_1 payment.approved (dead) → applied: credited ARS 1,500.00; order ord_cli_1 created → paid; dead letter resolved",
      "order ord_cli_1: created, credited ARS 0.00, refunded ARS 0.00 → paid, credited ARS 1,500.00, refunded ARS 0.00",
      "    + credit ARS 1,500.00 credit:lab:lab:live:pay_cli_1 (event evt_cli_1)",
      "    money: +ARS 1,500.00",
      `apply exactly this with: npm run replay -- apply ${id}`,
    ]);
    assert.equal((await readOrder("ord_cli_1")).status, "created");
  });

  test("show and apply by id; applying again applies nothing; both audited once as cli:<user>", async () => {
    const shown = await run(replay, ["show", id, "--json"]);
    assert.equal(shown.status, 0);
    assert.equal(JSON.parse(shown.stdout).status, "previewed");
    const applied = await run(replay, ["apply", id]);
    assert.equal(applied.status, 0, applied.stderr);
    assert.equal(applied.stdout.split("\n")[0], `replay ${id} applied: 1 of 1 event applied`);
    assert.equal((await readOrder("ord_cli_1")).status, "paid");
    const again = await run(replay, ["apply", id]);
    assert.equal(again.status, 0);
    const appliedAt = (await (await db()).replay.findUniqueOrThrow({ where: { id } })).appliedAt!.toISOString();
    assert.equal(again.stdout, `replay ${id} was already applied (${appliedAt}, by ${userInfo().username} (command line)); nothing applied now\n`);
    const audit = await (await db()).auditEntry.findMany({ where: { action: "replay.apply", targetId: id } });
    assert.equal(audit.length, 1);
    assert.equal(audit[0].actorEmail, `cli:${userInfo().username}`);
  });

  test("in es-AR: the sentences and the money read in Spanish", async () => {
    assert.equal((await deliverLab(labEvent("evt_cli_2", "payment.approved", "ord_cli_2", "pay_cli_2", 2_500))).status, 409);
    assert.equal((await createOrder("ord_cli_2", 2_500)).status, 201);
    const { status, stdout } = await run(replay, ["preview", "--event", "evt_cli_2", "--locale", "es-AR"]);
    assert.equal(status, 0);
    const lines = stdout.trimEnd().split("\n");
    assert.match(lines[0], /^reprocesamiento \S+ en vista previa: 1 evento, 1 orden; no se aplicó nada$/);
    assert.equal(lines[2], "orden ord_cli_2: created, acreditado $ 0,00, reembolsado $ 0,00 → paid, acreditado $ 25,00, reembolsado $ 0,00");
    assert.equal(lines[4], "    dinero: +$ 25,00");
  });

  test("refusals: bad usage and an unknown id exit 2, a filter naming nothing exits 1", async () => {
    assert.equal((await run(replay, [])).status, 2);
    const unknownFlag = await run(replay, ["preview", "--colour", "red"]);
    assert.deepEqual([unknownFlag.status, unknownFlag.stderr.split("\n")[0]], [2, "replay: unknown option --colour"]);
    const badFilter = await run(replay, ["preview", "--status", "received"]);
    assert.equal(badFilter.status, 2);
    assert.match(badFilter.stderr, /^replay: status: must be one of processed, ignored, failed, dead/);
    const missing = await run(replay, ["apply", "rpl_nope"]);
    assert.deepEqual([missing.status, missing.stderr], [2, "replay: no replay rpl_nope\n"]);
    const none = await run(replay, ["preview", "--order", "ord_cli_none"]);
    assert.deepEqual([none.status, none.stdout], [1, "the filter names no event that can be replayed\n"]);
  });

  test("retry-dead-letters shows the count, and retries only with --yes", async () => {
    assert.equal((await deliverLab(labEvent("evt_cli_3", "payment.approved", "ord_cli_3", "pay_cli_3", 700))).status, 409);
    const counted = await run(replay, ["retry-dead-letters", "--event", "evt_cli_3,evt_cli_2"]);
    assert.equal(counted.status, 0);
    const lines = counted.stdout.trimEnd().split("\n");
    assert.equal(lines[0], "2 open dead letters match the filter");
    assert.equal(lines.at(-1), "retry them with the same filter and --yes");
    assert.equal(await (await db()).auditEntry.count({ where: { action: "dead_letter.retry" } }), 0);

    const done = await run(replay, ["retry-dead-letters", "--event", "evt_cli_3,evt_cli_2", "--yes"]);
    // evt_cli_2's order exists: applied; evt_cli_3's does not: failed again, so the exit is 1.
    assert.equal(done.status, 1);
    assert.deepEqual(done.stdout.trimEnd().split("\n").map((line) => line.split("  ")[1] ?? line).sort(), ["applied", "dead_lettered", "retried 2 dead letters"]);
    assert.equal((await readOrder("ord_cli_2")).status, "paid");
  });
});

describe("npm run verify-books", () => {
  test("books that agree exit 0; a corrupted row exits 1 naming the order, the entry and its event; nothing corrected", async () => {
    const clean = await run(verifyBooks, []);
    assert.equal(clean.status, 0, clean.stderr);
    // ord_cli_3 does not exist: its dead-lettered event belongs to no order's books.
    assert.deepEqual(clean.stdout.trimEnd().split("\n"), ["books agree for 2 of 2 orders"]);
    assert.equal(await (await db()).booksCheck.count({ where: { trigger: "cli", status: "done" } }), 1);

    await (await db()).ledgerEntry.updateMany({ where: { businessKey: "credit:lab:lab:live:pay_cli_1" }, data: { amount: 149_000 } });
    const one = await run(verifyBooks, ["--order", "ord_cli_1"]);
    assert.equal(one.status, 1);
    assert.deepEqual(one.stdout.trimEnd().split("\n"), [
      "books agree for 0 of 1 order",
      "1 order differs; nothing was corrected",
      "DIFFERS order ord_cli_1 (open /orders/ord_cli_1):",
      "  entry of another amount: credit credit:lab:lab:live:pay_cli_1: books ARS 1,490.00, rebuilt ARS 1,500.00 (events evt_cli_1)",
    ]);
    assert.equal((await (await db()).ledgerEntry.findUniqueOrThrow({ where: { businessKey: "credit:lab:lab:live:pay_cli_1" } })).amount, 149_000);
    // An order subset is not recorded as the latest check.
    assert.equal(await (await db()).booksCheck.count(), 1);

    const es = await run(verifyBooks, ["--order", "ord_cli_1", "--locale", "es-AR"]);
    assert.equal(es.stdout.split("\n")[0], "los libros coinciden en 0 de 1 orden");
    const unknown = await run(verifyBooks, ["--order", "ord_cli_nope"]);
    assert.deepEqual([unknown.status, unknown.stderr], [2, "verify-books: no order ord_cli_nope\n"]);
    assert.equal((await run(verifyBooks, ["--orders"])).status, 2);
  });
});
