// slow-test: plays the whole lab against a built server in inbox mode and waits for its worker to apply every event
// `npm run lab` against a real server whose lab endpoint runs in inbox mode (LAB_PROCESSING_MODE=inbox):
// every provider delivery is acknowledged 200 once stored, the early refund is parked by the worker
// and applied when the approval lands, and the reconciliation finds 0 mismatches. The lab's main runs in
// this process.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { freshDatabaseUrl, startServer, type RunningServer } from "../support/server";
import { runMain } from "../support/cli";
import { main as labCli } from "@/scripts/lab";

const SECRET = "lab_inbox_secret_0001";
const TOKEN = "lab-inbox-token-0123456789abcdef-0001";
let server: RunningServer;
const databaseUrl = freshDatabaseUrl();

before(async () => {
  server = await startServer({ DATABASE_URL: databaseUrl, LAB_WEBHOOK_SECRET: SECRET, API_TOKEN: TOKEN, LAB_PROCESSING_MODE: "inbox", INBOX_POLL_INTERVAL_MS: "50" });
});
after(() => server.stop());

test("npm run lab in inbox mode: every provider delivery is accepted once stored, 0 mismatches, 0 over-credited", async () => {
  const result = await runMain(labCli, ["--url", server.url, "--allow-production"], { ...process.env, LAB_WEBHOOK_SECRET: SECRET, API_TOKEN: TOKEN, PORT: String(server.port), DATABASE_URL: databaseUrl });
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  const lines = result.stdout.split("\n");
  const deliveries = lines.flatMap((line) => {
    const match = /^\+\S+\s+(evt_\d+)\s+.*?\s(\d{3})\s+([a-z_]+)\s/.exec(line);
    return match ? [[match[1], match[2], match[3]]] : [];
  });
  // The two simultaneous copies of evt_0002 race: one is accepted, the other is a duplicate, either way round.
  const concurrent = deliveries.splice(2, 2).map((delivery) => delivery.join(" ")).sort();
  assert.deepEqual(concurrent, ["evt_0002 200 accepted", "evt_0002 200 duplicate"]);
  assert.deepEqual(deliveries, [
    ["evt_0001", "200", "accepted"],
    ["evt_0001", "200", "duplicate"],
    ["evt_0003", "200", "accepted"],
    ["evt_9999", "401", "rejected"],
    ["evt_0005", "200", "accepted"],
    ["evt_0004", "200", "accepted"],
    ["evt_0003", "401", "rejected"],
  ]);
  assert.ok(lines.includes("0 mismatches in 5 settlement rows and 5 orders; over-credited: ARS 0.00"), result.stdout);

  const auth = { authorization: `Bearer ${TOKEN}` };
  const refunded = await (await fetch(`${server.url}/api/orders/ord_1045`, { headers: auth })).json();
  assert.equal(refunded.status, "refunded");
  assert.equal(refunded.credited, 0);
  const keys: string[] = refunded.ledger.map((entry: { businessKey: string }) => entry.businessKey);
  assert.equal(keys.length, 2);
  assert.equal(keys[0], "credit:lab:lab:live:pay_0004");
  // The lab's full refund is its payment's absolute refunded total, kept with the event's creation time.
  assert.match(keys[1], /^refund:lab:lab:live:pay_0004:total:1500000:at:\d+$/);
  const metrics = await (await fetch(`${server.url}/api/metrics`, { headers: auth })).json();
  assert.equal(metrics.inbox.pending, 0);
  assert.equal(metrics.deadLetters.open, 0);
});
