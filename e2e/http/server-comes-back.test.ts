// slow-test: SIGKILLs the server under npm start during a burst and waits for it to come back
// A server that comes back: `npm start` (scripts/start.ts, its own process group) with a worker on one
// database; in the middle of a provider's burst of lab deliveries (inbox mode, duplicates, retries of
// every delivery that got no 2xx) the Next.js server process alone is SIGKILLed, as the kernel's OOM
// killer or V8's heap limit would end it. npm start must start it again by itself (before, it exited
// with it and everything stayed down): deliveries are answered again within 15 s, nothing is lost,
// the restart is logged and counted in the metrics, and SIGTERM still stops everything cleanly.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { freePort } from "@/lib/net/free-port";
import { labEvent } from "../support/http";
import { restartEnv, serverProcessesOf, trackedProcesses } from "../support/npm-start";
import { seededRandom, sendLikeAProvider, shuffledBurst } from "../support/provider-burst";
import { E2E_API_TOKEN, postOrder, waitFor } from "../support/real-server";
import { sqlReader } from "../support/sql-reader";
import { newTestDatabase, TEST_DATABASE } from "../support/test-database";

const ORDERS = 20;
const REFUNDED = 10;
const EVENTS = ORDERS + REFUNDED;
const DELIVERIES = 150;
const { start, worker } = trackedProcesses();

describe(`npm start restarts its server process on ${TEST_DATABASE}`, () => {
  test("the server process SIGKILLed mid-burst: npm start restarts it, deliveries are answered again within 15 s, every event is applied once, the restart is logged and counted, and SIGTERM still ends npm start with status 143", async () => {
    const seed = Number(process.env.RESTART_SEED ?? Date.now() % 1_000_000);
    // Already migrated: npm start migrating an empty database is restart-under-load's and restart-upgrade's subject, not this one.
    const database = newTestDatabase("comes-back");
    const env = restartEnv(database.url);
    const { server, url } = await start(env, await freePort());
    const amounts = Array.from({ length: ORDERS }, (_, i) => 50_000 + i * 1_000);
    for (let i = 0; i < ORDERS; i++) assert.equal(await postOrder(url, `ord_cb${i}`, amounts[i]), 201);
    worker(env);
    const events = [
      ...amounts.map((amount, i) => labEvent(`evt_cba${i}`, "payment.approved", `ord_cb${i}`, `pay_cb${i}`, amount)),
      ...amounts.slice(0, REFUNDED).map((amount, i) => labEvent(`evt_cbr${i}`, "payment.refunded", `ord_cb${i}`, `pay_cb${i}`, amount)),
    ];
    const startPid = server.process.pid!;
    const [firstChild] = serverProcessesOf(startPid);
    assert.ok(firstChild, "npm start has its server process");
    let downMs = -1;
    let secondChild: number | undefined;
    const answers = await sendLikeAProvider(url, shuffledBurst(events, DELIVERIES, seededRandom(seed)), {
      concurrency: 6,
      afterEach: async (sent) => {
        if (sent !== DELIVERIES / 3) return;
        process.kill(firstChild, "SIGKILL");
        const killedAt = Date.now();
        await waitFor("a delivery answered after the kill", async () => (await fetch(`${url}/api/health/live`, { headers: { connection: "close" } })).status === 200, { timeoutMs: 15_000, intervalMs: 50 });
        downMs = Date.now() - killedAt;
        [secondChild] = serverProcessesOf(startPid);
      },
    });
    const context = `seed ${seed}; answers ${JSON.stringify(answers)}; down ${downMs} ms\n${server.log()}`;
    assert.ok(downMs >= 0 && downMs < 15_000, context);
    assert.ok(answers.retried > 0, `the provider saw the server down and retried: ${context}`);
    assert.equal(server.alive, true, context);
    assert.ok(secondChild && secondChild !== firstChild, context);
    assert.equal(answers.accepted + answers.duplicate, DELIVERIES, context);
    assert.match(server.log(), /Acredita: the server process exited \(signal SIGKILL\) after \d+\.\d s; restarting it in 0\.5 s \(restart 1\)\./, context);
    const metrics = await fetch(`${url}/api/metrics/prometheus`, { headers: { authorization: `Bearer ${E2E_API_TOKEN}` } });
    assert.ok((await metrics.text()).split("\n").includes("acredita_server_restarts_total 1"), context);

    const db = sqlReader(database);
    try {
      const count = (sql: string) => db.count(sql);
      await waitFor("every stored event to be applied", () => count("SELECT COUNT(*) AS n FROM WebhookEvent WHERE status = 'processed'") === EVENTS, { timeoutMs: 60_000, intervalMs: 100 });
      assert.equal(count("SELECT COUNT(*) AS n FROM WebhookEvent"), EVENTS, context);
      assert.equal(count("SELECT COUNT(*) AS n FROM LedgerEntry"), EVENTS, context);
      assert.equal(count("SELECT COUNT(DISTINCT businessKey) AS n FROM LedgerEntry"), EVENTS, context);
      assert.equal(count("SELECT COUNT(*) AS n FROM \"Order\" WHERE id LIKE 'ord_cb%' AND status = 'paid'"), ORDERS - REFUNDED, context);
      assert.equal(count("SELECT COUNT(*) AS n FROM \"Order\" WHERE id LIKE 'ord_cb%' AND status = 'refunded'"), REFUNDED, context);
      assert.equal(count("SELECT COUNT(*) AS n FROM DeadLetter"), 0, context);
    } finally {
      db.close();
    }

    // Asked to stop, as a supervisor does (SIGTERM to the group): no restart, the server's own status.
    const exit = await server.killGroup("SIGTERM");
    assert.deepEqual(exit, { code: 143, signal: null }, server.log());
    assert.equal(server.log().match(/restarting it/g)?.length, 1, server.log());
    assert.deepEqual(serverProcessesOf(startPid), []);
  });
});
