// PostgreSQL connections lost under a running `npm start` and `npm run worker` (as by a database
// restart, an idle-connection killer or a failover): every connection of both is terminated with
// pg_terminate_backend, and the same processes store and apply the next delivery on new connections.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { freePort } from "@/lib/net/free-port";
import { labEvent } from "../support/http";
import { trackedProcesses, restartEnv, startAcredita } from "../support/npm-start";
import { postLab, postOrder, waitFor, type Env } from "../support/real-server";
import { sqlReader } from "../support/sql-reader";
import { newTestDatabase, onPostgres } from "../support/test-database";

const { start, worker, children } = trackedProcesses();

describe("PostgreSQL connections lost under running processes", () => {
  test("PostgreSQL: every connection of the server and the worker terminated (as by a database restart): both reconnect by themselves", { skip: onPostgres ? false : "PostgreSQL only (TEST_DATABASE=postgres): SQLite has no connections to lose" }, async () => {
    // Already migrated (a copy of the template): the subject is the lost connections, not npm start migrating.
    const database = newTestDatabase("reconnect");
    const env = restartEnv(database.url);
    const { server, url } = await start(env, await freePort());
    const workerEnv = { ...env, LOG_LEVEL: "info" };
    const running = worker(workerEnv);
    const db = sqlReader(database);
    const paid = (id: string) => db.get<{ status: string }>("SELECT status FROM \"Order\" WHERE id = ?", id)?.status === "paid";
    assert.equal(await postOrder(url, "ord_c1", 1000), 201);
    assert.equal(await postOrder(url, "ord_c2", 2000), 201);
    assert.equal((await postLab(url, labEvent("evt_c1", "payment.approved", "ord_c1", "pay_c1", 1000))).json.outcome, "accepted");
    await waitFor("the worker to apply evt_c1", () => paid("ord_c1"));

    const terminated = db.count("SELECT COUNT(*) AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = 'acredita') t");
    assert.ok(terminated >= 2, `terminated ${terminated} connections (the server's and the worker's pools)`);
    // The provider retries until it gets a 2xx: the first request may meet a connection the server has not yet seen die.
    let answer = { status: 0, json: { outcome: "", reason: "" } };
    await waitFor("the server to store evt_c2", async () => {
      answer = await postLab(url, labEvent("evt_c2", "payment.approved", "ord_c2", "pay_c2", 2000));
      return answer.status === 200;
    });
    assert.equal(answer.json.outcome, "accepted");
    await waitFor("the same worker to apply evt_c2 on a new connection", () => paid("ord_c2")).catch((error: Error) => {
      throw new Error(`${error.message}\n${running.log()}`);
    });
    assert.equal(db.count("SELECT COUNT(*) AS n FROM LedgerEntry"), 2);
    assert.equal(running.alive, true, running.log());
    assert.equal(server.alive, true, server.log());
    assert.equal((await fetch(`${url}/api/health`)).status, 200);
    db.close();
    await waitFor("the worker to be running", () => running.output.join("").includes("background workers started"));
    assert.equal((await running.kill("SIGTERM")).code, 0, running.log());
    await server.killGroup("SIGTERM");
  });
});
