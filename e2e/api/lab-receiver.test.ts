import "../support/test-env";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { createOrder, deliverLab, labEvent, readOrder } from "../support/http";

before(async () => {
  assert.equal((await createOrder("ord_1", 2500000)).status, 201);
});
after(closeDb);

describe("lab receiver", () => {
  test("an approval credits the order once and a redelivery is a duplicate", async () => {
    const body = labEvent("evt_1", "payment.approved", "ord_1", "pay_1", 2500000);
    const first = await deliverLab(body);
    assert.equal(first.status, 200);
    assert.equal(first.json.outcome, "applied");
    const second = await deliverLab(body, { timestamp: Math.floor(Date.now() / 1000) + 5 });
    assert.equal(second.status, 200);
    assert.equal(second.json.outcome, "duplicate");
    const order = await readOrder("ord_1");
    assert.equal(order.status, "paid");
    assert.equal(order.credited, 2500000);
    assert.equal((await (await db()).decision.count()), 2);
  });
});
