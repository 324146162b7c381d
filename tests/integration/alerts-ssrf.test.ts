import "@/e2e/support/test-env";
// Alert channels' URLs as production checks them (ALERTS_ALLOW_PRIVATE_URLS unset): POST
// /api/alerts/channels refuses http and every loopback, private, link-local (the metadata service),
// CGNAT and unique-local address, by literal or by a name that resolves there; a channel whose URL is
// refused at send time (stored before, or its name now resolves inside) fails without any request.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, describe, test } from "node:test";
import * as channelsRoute from "@/app/api/alerts/channels/route";
import { AlertReceiver } from "@/e2e/support/alert-receivers";
import { TEST_API_TOKEN } from "@/e2e/support/test-env";
import { evaluateOrganization } from "@/lib/alerts/alert-evaluator";
import { insertAlertChannel } from "@/lib/alerts/alert-store";
import { sendAlertMessage } from "@/lib/alerts/send-alert";
import { closeDb, db } from "@/lib/db/client";
import { OutboxDispatcher } from "@/lib/outbox/outbox-dispatcher";

process.env.ACREDITA_SECRETS_KEY = randomBytes(32).toString("base64");
delete process.env.ALERTS_ALLOW_PRIVATE_URLS;

after(closeDb);

const operator = { authorization: `Bearer ${TEST_API_TOKEN}`, "content-type": "application/json" };

async function post(body: unknown): Promise<{ status: number; json: { code?: string; error?: string } }> {
  const response = await channelsRoute.POST(new Request("http://127.0.0.1/api/alerts/channels", { method: "POST", headers: operator, body: JSON.stringify(body) }));
  return { status: response.status, json: await response.json() };
}

describe("SSRF: alert channel URLs must be https to public addresses", () => {
  test("POST /api/alerts/channels refuses http, loopback, private, link-local, CGNAT, unique-local and names that resolve there (400, nothing stored)", async () => {
    const refused = [
      ["http://hooks.example.com/alerts", "must be an https:// URL"],
      ["https://127.0.0.1/hook", "must point to a public address"],
      ["https://localhost:8443/hook", "must point to a public address"],
      ["https://169.254.169.254/latest/meta-data/", "must point to a public address"],
      ["https://10.0.0.7/hook", "must point to a public address"],
      ["https://172.20.1.1/hook", "must point to a public address"],
      ["https://192.168.1.10/hook", "must point to a public address"],
      ["https://100.100.100.200/hook", "must point to a public address"],
      ["https://[::1]/hook", "must point to a public address"],
      ["https://[fd12:3456::1]/hook", "must point to a public address"],
      ["https://[fe80::1]/hook", "must point to a public address"],
      ["https://[::ffff:127.0.0.1]/hook", "must point to a public address"],
      ["https://user:secret@hooks.example.com/", "must not carry a user name or password"],
    ];
    for (const [url, message] of refused) {
      for (const kind of ["webhook", "slack"]) {
        const answer = await post({ kind, url });
        assert.equal(answer.status, 400, `${kind} ${url}`);
        assert.equal(answer.json.code, "invalid_body");
        assert.ok(answer.json.error?.includes(message), `${url}: ${answer.json.error}`);
        assert.ok(!answer.json.error?.includes(url), "the answer never repeats the URL");
      }
    }
    assert.equal(await (await db()).alertChannel.count(), 0);
  });

  test("at send time a refused URL fails the notice without a request", async () => {
    const receiver = new AlertReceiver();
    const base = await receiver.start();
    try {
      const client = await db();
      // Stored as if added while private URLs were allowed: the send checks again.
      await insertAlertChannel(client, { id: "ach_private", organizationId: "org_default", kind: "slack", to: null, url: `${base}/slack`, secretCiphertext: null, createdAt: new Date() });
      await client.deadLetter.create({ data: { dedupeKey: "dl_ssrf", provider: "lab", endpoint: "lab", account: "lab", livemode: true, eventId: "evt_ssrf", eventType: "payment.approved", bodyHash: "h", payload: "{}", category: "unknown_order", reason: "order not found", retryable: true, nextAction: "retry" } });
      assert.equal((await evaluateOrganization(client, "org_default", new Date())).opened.length, 1);
      const results = await new OutboxDispatcher(db, { channelSender: sendAlertMessage, maxAttempts: 3 }).drain();
      assert.deepEqual(results.map((result) => result.status), ["failed"]);
      assert.match(results[0].detail, /^not sent: the channel's URL is refused: must be an https:\/\/ URL$/);
      assert.equal(receiver.requests.length, 0);
    } finally {
      await receiver.stop();
    }
  });
});
