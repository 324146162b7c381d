import assert from "node:assert/strict";
import { test } from "node:test";
import { formatLogLine, resolveLogFormat } from "@/lib/log/human-log-format";

const AT = Date.UTC(2026, 11, 2, 12, 43, 11);

test("a pino line reads as time, level, message and key=value pairs; a nested record one level deep, an error by its message", () => {
  const decision = { level: 30, time: AT, service: "acredita", decision: { provider: "lab", eventId: "evt_1", orderId: null, outcome: "dead_lettered", httpStatus: 409, reason: "order ord_1 (created) cannot be refunded", reasonParams: { a: 1 } }, msg: "decision" };
  assert.equal(
    formatLogLine(JSON.stringify(decision)),
    '12:43:11 INFO  decision provider=lab eventId=evt_1 outcome=dead_lettered httpStatus=409 reason="order ord_1 (created) cannot be refunded" reasonParams={"a":1}',
  );
  assert.equal(formatLogLine(JSON.stringify({ level: 50, time: AT, err: { type: "Error", message: "boom", stack: "Error: boom\n    at x" }, msg: "event not applied" })), '12:43:11 ERROR event not applied err=boom');
});

test("nothing in a line can drive the terminal, and a line that is not JSON is shown as it came, escaped", () => {
  assert.equal(formatLogLine(JSON.stringify({ level: 40, time: AT, eventId: "evt_\u001b[2J\u009b", msg: "odd \u202e id" })), '12:43:11 WARN  odd \\u202e id eventId="evt_\\u001b[2J\\x9b"');
  assert.equal(formatLogLine("not json \u001b[2J\n"), "not json \\x1b[2J");
});

test("LOG_FORMAT: json or human when asked, else human on a terminal only", () => {
  const terminal = () => true;
  const pipe = () => false;
  assert.equal(resolveLogFormat(undefined, 2, terminal), "human");
  assert.equal(resolveLogFormat("auto", 2, pipe), "json");
  assert.equal(resolveLogFormat("JSON", 2, terminal), "json");
  assert.equal(resolveLogFormat("human", 1, pipe), "human");
});

test("a coded reason reads as the dashboard's English sentence, money by currency, without the stored parameters", () => {
  const decision = { level: 30, time: AT, decision: { eventId: "evt_2", outcome: "applied", reason: "credited 1000 ARS; order ord_2 created -> paid", reasonCode: "credited", reasonParams: JSON.stringify({ amount: { amount: 1000, currency: "ARS" }, orderId: "ord_2", from: "created", to: "paid" }) }, msg: "decision" };
  assert.equal(formatLogLine(JSON.stringify(decision)), '12:43:11 INFO  decision eventId=evt_2 outcome=applied reason="credited ARS 10.00; order ord_2 created → paid" reasonCode=credited');
});
