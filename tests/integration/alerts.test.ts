import "@/e2e/support/test-env";
// Alerts on the database under test: each rule opens one incident where its condition holds, counts
// repeats into it, and resolves it once; each open and each resolution queues one notice per channel;
// the outbox dispatcher delivers them (a Standard Webhooks-signed POST that Acredita's own verifier and
// the reference library accept, a Slack text, an e-mail through a local SMTP server), retrying a failing
// channel until it takes the notice once; two evaluators at once open one incident; the channels API is
// scoped by organization.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { Webhook } from "standardwebhooks";
import * as apiKeysRoute from "@/app/api/api-keys/route";
import * as channelsRoute from "@/app/api/alerts/channels/route";
import * as channelRoute from "@/app/api/alerts/channels/[id]/route";
import * as incidentsRoute from "@/app/api/alerts/incidents/route";
import { AlertReceiver, MailReceiver } from "@/e2e/support/alert-receivers";
import { TEST_API_TOKEN } from "@/e2e/support/test-env";
import { createAlertChannel } from "@/lib/alerts/alert-channels";
import { AlertScheduler, evaluateOrganization } from "@/lib/alerts/alert-evaluator";
import type { AlertNotice } from "@/lib/alerts/alert-message";
import type { AlertRuleName } from "@/lib/alerts/alert-rules";
import { sendAlertMessage } from "@/lib/alerts/send-alert";
import { ApplyFailure } from "@/lib/core/failures";
import { closeDb, db, type Db } from "@/lib/db/client";
import { recordDeadLetter } from "@/lib/dead-letters/dead-letters";
import { because } from "@/lib/reasons/reason-codes";
import { OutboxDispatcher } from "@/lib/outbox/outbox-dispatcher";
import { verifyStandardWebhooks } from "@/lib/providers/signatures/standard-webhooks-signature";

process.env.ACREDITA_SECRETS_KEY = randomBytes(32).toString("base64");
// The receivers below listen on 127.0.0.1 over http.
process.env.ALERTS_ALLOW_PRIVATE_URLS = "true";

const receiver = new AlertReceiver();
const mail = new MailReceiver();
let base = "";

before(async () => {
  base = await receiver.start();
  // Settings are read on first use: SMTP_URL must be set before.
  process.env.SMTP_URL = await mail.start();
});
after(async () => {
  await receiver.stop();
  await mail.stop();
  await closeDb();
});

const MINUTE = 60_000;
/** The evaluations' clock: an hour ago, so the notices they queue are due for the dispatcher. */
const T0 = new Date(Math.floor((Date.now() - 3 * 3_600_000) / MINUTE) * MINUTE);
const at = (ms: number) => new Date(T0.getTime() + ms);

let organizations = 0;
async function newOrganization(): Promise<{ id: string; slug: string }> {
  organizations += 1;
  const organization = { id: `org_alerts_${organizations}`, slug: `alerts-${organizations}` };
  await (await db()).organization.create({ data: { ...organization, name: organization.slug } });
  return organization;
}

const secrets = new Map<string, string>();

/** A webhook channel (to the receiver, under a path naming the organization) and an e-mail channel. */
async function twoChannels(organizationId: string): Promise<{ webhook: string; email: string }> {
  const webhook = await createAlertChannel(await db(), organizationId, { kind: "webhook", url: `${base}/${organizationId}/hook` });
  const email = await createAlertChannel(await db(), organizationId, { kind: "email", to: `ops@${organizationId.replaceAll("_", "-")}.test` });
  assert.equal(webhook.kind, "created");
  assert.equal(email.kind, "created");
  if (webhook.kind !== "created" || email.kind !== "created") throw new Error("unreachable");
  secrets.set(webhook.channel.id, webhook.secret!);
  return { webhook: webhook.channel.id, email: email.channel.id };
}

async function notices(organizationId: string) {
  return (await db()).outboxMessage.findMany({ where: { organizationId, channelId: { not: null } }, orderBy: { idempotencyKey: "asc" } });
}

async function incidents(organizationId: string) {
  return (await db()).incident.findMany({ where: { organizationId }, orderBy: { openedAt: "asc" } });
}

const dispatcher = (offsetMs = 4 * 3_600_000) => new OutboxDispatcher(db, { channelSender: sendAlertMessage, now: () => new Date(Date.now() + offsetMs), random: () => 0.5, baseDelayMs: 1_000, maxDelayMs: 2_000, leaseMs: 5_000, timeoutMs: 3_000, maxAttempts: 3 });

/** One rule's scenario: rows that make its condition hold, then what clears it, and when each is evaluated. */
interface Scenario {
  rule: AlertRuleName;
  key: string;
  hold(client: Db, organizationId: string): Promise<void>;
  /** Optional: something more that still holds (counted into the open incident). */
  more?(client: Db, organizationId: string): Promise<void>;
  clear(client: Db, organizationId: string): Promise<void>;
  /** When the cleared condition is evaluated (default T0 + 2 min). */
  clearedAt?: Date;
  /** The incident's count after the second evaluation. */
  count: number;
}

function deadLetter(organizationId: string, id: string, firstFailedAt: Date) {
  return { organizationId, dedupeKey: `${organizationId}:${id}`, provider: "lab", endpoint: "lab", account: "lab", livemode: true, eventId: id, eventType: "payment.approved", orderId: "ord_missing", bodyHash: id, payload: "{}", category: "unknown_order", reason: "order not found", retryable: true, nextAction: "retry", firstFailedAt, lastFailedAt: firstFailedAt };
}

const SCENARIOS: Scenario[] = [
  {
    rule: "dead_letter_open",
    key: "",
    hold: async (client, org) => void (await client.deadLetter.create({ data: deadLetter(org, "evt_dl_1", at(-MINUTE)) })),
    more: async (client, org) => void (await client.deadLetter.create({ data: deadLetter(org, "evt_dl_2", at(30_000)) })),
    clear: async (client, org) => void (await client.deadLetter.updateMany({ where: { organizationId: org }, data: { status: "resolved", resolvedAt: at(90_000) } })),
    count: 2,
  },
  {
    rule: "pending_event_age",
    key: "",
    hold: async (client, org) => void (await client.webhookEvent.create({ data: { organizationId: org, provider: "lab", endpoint: "lab", account: `acct_${org}`, livemode: true, eventId: "evt_late", type: "payment.approved", bodyHash: "h", status: "received", payload: "{}", receivedAt: at(-11 * MINUTE) } })),
    clear: async (client, org) => void (await client.webhookEvent.updateMany({ where: { organizationId: org }, data: { status: "processed", processedAt: at(90_000) } })),
    count: 1,
  },
  {
    rule: "payment_undelivered",
    key: "",
    // Never due for the dispatcher: this test sends only alerts.
    hold: async (client, org) => void (await client.outboxMessage.create({ data: { organizationId: org, idempotencyKey: `fulfilment:${org}:ord_1`, orderId: "ord_1", target: "http://127.0.0.1:9/none", body: "{}", createdAt: at(-16 * MINUTE), nextAttemptAt: new Date("2100-01-01T00:00:00Z") } })),
    clear: async (client, org) => void (await client.outboxMessage.updateMany({ where: { organizationId: org, channelId: null }, data: { status: "sent" } })),
    count: 1,
  },
  {
    rule: "reconciliation_mismatch",
    key: "lab:lab:live",
    hold: async (client, org) => void (await client.reconciliationRun.create({ data: { organizationId: org, source: "settlement.csv", status: "done", mismatchCount: 2, startedAt: at(-60 * MINUTE), finishedAt: at(-59 * MINUTE) } })),
    clear: async (client, org) => void (await client.reconciliationRun.create({ data: { organizationId: org, source: "settlement.csv", status: "done", mismatchCount: 0, startedAt: at(90_000), finishedAt: at(100_000) } })),
    count: 2,
  },
  {
    rule: "signature_failures",
    key: "",
    hold: async (client, org) => {
      await client.endpoint.create({ data: { id: `ep_${org}`, organizationId: org, provider: "lab", account: `acct_${org}`, livemode: true, processingMode: "inline" } });
      await client.rejectionCount.create({ data: { endpoint: `ep_${org}`, provider: "lab", reason: "signature_mismatch", httpStatus: 401, minute: at(-MINUTE), count: 25, firstAt: at(-MINUTE), lastAt: at(-30_000) } });
    },
    // Five minutes later the window holds none of them.
    clear: async () => undefined,
    clearedAt: at(10 * MINUTE),
    count: 25,
  },
  {
    rule: "secret_still_matching",
    key: "",
    hold: async (client, org) => {
      await client.endpoint.create({ data: { id: `ep_${org}`, organizationId: org, provider: "lab", account: `acct_${org}`, livemode: true, processingMode: "inline" } });
      await client.endpointSecret.create({ data: { id: `sec_${org}`, endpointId: `ep_${org}`, label: "secret-1", ciphertext: null, expiresAt: at(2 * 86_400_000), lastMatchedAt: at(-5 * MINUTE) } });
    },
    // An hour without a match: the senders moved to the new secret.
    clear: async () => undefined,
    clearedAt: at(2 * 60 * MINUTE),
    count: 1,
  },
  {
    rule: "gap_found",
    key: "stripe",
    hold: async (client, org) => void (await client.gapCheck.create({ data: { id: `gap_${org}_1`, organizationId: org, endpoint: "stripe", trigger: "scheduled", status: "done", startedAt: at(-10 * MINUTE), finishedAt: at(-9 * MINUTE), since: at(-3 * 86_400_000), listed: 5, stored: 3 } })),
    clear: async (client, org) => void (await client.gapCheck.create({ data: { id: `gap_${org}_2`, organizationId: org, endpoint: "stripe", trigger: "scheduled", status: "done", startedAt: at(90_000), finishedAt: at(100_000), since: at(-3 * 86_400_000), listed: 5, stored: 0 } })),
    count: 3,
  },
];

describe("each rule opens one incident, one notice per channel, and resolves once", () => {
  for (const scenario of SCENARIOS) {
    test(scenario.rule, async () => {
      const client = await db();
      const { id: org } = await newOrganization();
      const channels = await twoChannels(org);
      const key = scenario.rule === "signature_failures" ? `ep_${org}` : scenario.rule === "secret_still_matching" ? `ep_${org}:secret-1` : scenario.key;
      assert.deepEqual((await evaluateOrganization(client, org, T0)).opened, [], "nothing holds yet");
      await scenario.hold(client, org);

      const first = await evaluateOrganization(client, org, T0);
      assert.deepEqual(first.opened.map((opened) => [opened.rule, opened.key]), [[scenario.rule, key]]);
      assert.deepEqual(first.failed, []);
      const [incident] = await incidents(org);
      assert.equal(incident.status, "open");
      assert.equal(incident.openKey, `${org}|${scenario.rule}|${key}`);
      const opened = await notices(org);
      assert.deepEqual(opened.map((row) => row.idempotencyKey).sort(), [`alert:${incident.id}:opened:${channels.email}`, `alert:${incident.id}:opened:${channels.webhook}`].sort());
      assert.deepEqual(opened.map((row) => row.orderId), ["", ""]);
      const body = JSON.parse(opened[0].body) as AlertNotice;
      assert.deepEqual([body.type, body.incident.rule, body.incident.key, body.organization_id], ["alert.opened", scenario.rule, key, org]);

      await scenario.more?.(client, org);
      const second = await evaluateOrganization(client, org, at(MINUTE));
      assert.deepEqual([second.opened, second.resolved], [[], []], "a condition still holding is counted into the open incident");
      assert.equal((await notices(org)).length, 2);
      const [counted] = await incidents(org);
      assert.equal(counted.count, scenario.count);

      await scenario.clear(client, org);
      const cleared = await evaluateOrganization(client, org, scenario.clearedAt ?? at(2 * MINUTE));
      assert.deepEqual(cleared.resolved.map((resolved) => [resolved.rule, resolved.incidentId]), [[scenario.rule, incident.id]]);
      const again = await evaluateOrganization(client, org, at(3 * MINUTE + (scenario.clearedAt ? scenario.clearedAt.getTime() - T0.getTime() : 0)));
      assert.deepEqual([again.opened, again.resolved], [[], []], "resolved once");
      const rows = await incidents(org);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].status, "resolved");
      assert.equal(rows[0].openKey, null);
      assert.ok(rows[0].resolvedAt);
      assert.deepEqual(
        (await notices(org)).map((row) => row.idempotencyKey).sort(),
        ["opened", "resolved"].flatMap((change) => [channels.email, channels.webhook].map((channel) => `alert:${incident.id}:${change}:${channel}`)).sort(),
      );
    });
  }

  test("a disabled rule opens nothing, and its open incident resolves", async () => {
    const client = await db();
    const { id: org } = await newOrganization();
    await twoChannels(org);
    await client.deadLetter.create({ data: deadLetter(org, "evt_off", at(-MINUTE)) });
    assert.equal((await evaluateOrganization(client, org, T0)).opened.length, 1);
    await client.alertRule.create({ data: { organizationId: org, rule: "dead_letter_open", enabled: false, threshold: 1 } });
    assert.equal((await evaluateOrganization(client, org, at(MINUTE))).resolved.length, 1);
    assert.equal((await evaluateOrganization(client, org, at(2 * MINUTE))).opened.length, 0);
  });

  test("a changed threshold: three open dead letters needed, two open nothing", async () => {
    const client = await db();
    const { id: org } = await newOrganization();
    await client.alertRule.create({ data: { organizationId: org, rule: "dead_letter_open", enabled: true, threshold: 3 } });
    for (const id of ["evt_t1", "evt_t2"]) await client.deadLetter.create({ data: deadLetter(org, id, at(-MINUTE)) });
    assert.equal((await evaluateOrganization(client, org, T0)).opened.length, 0);
    await client.deadLetter.create({ data: deadLetter(org, "evt_t3", at(-MINUTE)) });
    assert.equal((await evaluateOrganization(client, org, T0)).opened.length, 1);
  });

  test("two evaluators at once open one incident and queue one notice per channel", async () => {
    const client = await db();
    const { id: org } = await newOrganization();
    await twoChannels(org);
    await client.deadLetter.create({ data: deadLetter(org, "evt_race", at(-MINUTE)) });
    const reports = await Promise.all([evaluateOrganization(client, org, T0), evaluateOrganization(client, org, T0), evaluateOrganization(client, org, T0)]);
    assert.equal(reports.flatMap((report) => report.opened).length, 1);
    assert.equal((await incidents(org)).length, 1);
    assert.equal((await notices(org)).length, 2);
  });
});

describe("delivery through the outbox", () => {
  test("every queued notice is delivered once: signed webhooks that both verifiers accept, and e-mails", async () => {
    receiver.requests.length = 0;
    mail.mails.length = 0;
    const results = await dispatcher().drain();
    const queued = await (await db()).outboxMessage.findMany({ where: { channelId: { not: null } } });
    assert.equal(results.length, queued.length);
    assert.deepEqual([...new Set(results.map((result) => result.status))], ["sent"]);
    const webhookNotices = queued.filter((row) => !row.target.startsWith("mailto:"));
    assert.equal(receiver.requests.length, webhookNotices.length);
    assert.equal(mail.mails.length, queued.length - webhookNotices.length);
    for (const request of receiver.requests) {
      const channelId = request.headers["webhook-id"].split(":")[3];
      const secret = secrets.get(channelId)!;
      const verdict = verifyStandardWebhooks(new Headers(request.headers), Buffer.from(request.body), { secrets: [{ label: "alerts", value: secret }], retiredSecrets: [], toleranceSeconds: 300 }, new Date());
      assert.equal(verdict.ok, true, JSON.stringify(verdict));
      assert.doesNotThrow(() => new Webhook(secret).verify(request.body, request.headers));
      assert.equal(request.headers["idempotency-key"], request.headers["webhook-id"]);
    }
    assert.equal(new Set(receiver.requests.map((request) => request.headers["webhook-id"])).size, receiver.requests.length, "one request per notice");
    const [first] = mail.mails;
    assert.match(first.raw, /Subject: Acredita alert/);
    assert.equal(first.to.length, 1);
    assert.deepEqual(await dispatcher().drain(), [], "nothing left to send");
  });

  test("a failing webhook (503) and a failing SMTP server (451) are retried, then take the notice once", async () => {
    const client = await db();
    const { id: org } = await newOrganization();
    const channels = await twoChannels(org);
    await client.deadLetter.create({ data: deadLetter(org, "evt_retry", at(-MINUTE)) });
    await evaluateOrganization(client, org, T0);
    receiver.requests.length = 0;
    mail.mails.length = 0;
    receiver.statuses.push(503);
    mail.refusals.push(451);
    const firstTry = await dispatcher().drain();
    assert.deepEqual(firstTry.map((result) => result.status).sort(), ["pending", "pending"]);
    const retry = await dispatcher(4 * 3_600_000 + 10_000).drain();
    assert.deepEqual(retry.map((result) => result.status), ["sent", "sent"]);
    const rows = await notices(org);
    assert.deepEqual(rows.map((row) => [row.status, row.attempts]), [["sent", 2], ["sent", 2]]);
    assert.equal(receiver.requests.length, 2, "the 503, then the 200");
    assert.equal(receiver.requests[0].headers["webhook-id"], receiver.requests[1].headers["webhook-id"], "the same webhook-id on the retry");
    assert.equal(receiver.requests[1].headers["webhook-id"], rows.find((row) => row.channelId === channels.webhook)!.idempotencyKey);
    assert.equal(mail.mails.length, 1, "one e-mail accepted");
  });

  test("a Slack channel receives the summary as {text}; a removed channel's notice fails without a request", async () => {
    const client = await db();
    const { id: org } = await newOrganization();
    const slack = await createAlertChannel(client, org, { kind: "slack", url: `${base}/${org}/slack` });
    const gone = await createAlertChannel(client, org, { kind: "webhook", url: `${base}/${org}/gone` });
    if (slack.kind !== "created" || gone.kind !== "created") throw new Error("not created");
    await client.deadLetter.create({ data: deadLetter(org, "evt_slack", at(-MINUTE)) });
    await evaluateOrganization(client, org, T0);
    await client.alertChannel.update({ where: { id: gone.channel.id }, data: { disabledAt: new Date() } });
    receiver.requests.length = 0;
    const results = await dispatcher().drain();
    assert.deepEqual(results.map((result) => result.status).sort(), ["failed", "sent"]);
    assert.deepEqual(receiver.requests.map((request) => [request.path, Object.keys(JSON.parse(request.body))]), [[`/${org}/slack`, ["text"]]]);
    assert.match(JSON.parse(receiver.requests[0].body).text, /^Acredita alert: Dead letters open, 1 so far$/);
  });
});

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response> | Response;

async function call(route: unknown, method: string, path: string, headers: Record<string, string>, body?: unknown, params: Record<string, string> = {}) {
  const request = new Request(`http://127.0.0.1${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const response = await (route as Record<string, Handler>)[method](request, { params: Promise.resolve(params) });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {}, text, headers: response.headers };
}

describe("POST/GET /api/alerts/channels, DELETE /api/alerts/channels/<id>, GET /api/alerts/incidents", () => {
  test("an admin adds channels (a webhook's secret in the answer only, stored encrypted); support reads but cannot add; another organization's channel is 404", async () => {
    const acme = await newOrganization();
    const globex = await newOrganization();
    const operatorIn = (slug: string) => ({ authorization: `Bearer ${TEST_API_TOKEN}`, "acredita-org": slug });
    const created = await call(channelsRoute, "POST", "/api/alerts/channels", operatorIn(acme.slug), { kind: "webhook", url: `${base}/acme/hook` });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.json).sort(), ["createdAt", "id", "kind", "secret", "to", "url"]);
    const secret = created.json.secret as string;
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(created.headers.get("cache-control"), "no-store");
    const row = await (await db()).alertChannel.findUniqueOrThrow({ where: { id: created.json.id as string } });
    assert.match(row.secretCiphertext!, /^acs1:/);
    assert.ok(!row.secretCiphertext!.includes(secret.slice(6)));

    assert.equal((await call(channelsRoute, "POST", "/api/alerts/channels", operatorIn(acme.slug), { kind: "email", to: "ops@acme.test" })).status, 201);
    assert.equal((await call(channelsRoute, "POST", "/api/alerts/channels", operatorIn(acme.slug), { kind: "slack", url: `${base}/acme/slack` })).status, 201);
    const bad = await call(channelsRoute, "POST", "/api/alerts/channels", operatorIn(acme.slug), { kind: "pager", url: "x" });
    assert.equal(bad.status, 400);
    assert.equal((await call(channelsRoute, "POST", "/api/alerts/channels", operatorIn(acme.slug), { kind: "email", to: "not-an-address" })).status, 400);

    const listed = await call(channelsRoute, "GET", "/api/alerts/channels", operatorIn(acme.slug));
    assert.equal(listed.json.count, 3);
    assert.ok(!listed.text.includes("whsec_") && !listed.text.includes("acs1:"), "never a secret");
    assert.equal((await call(channelsRoute, "GET", "/api/alerts/channels", operatorIn(globex.slug))).json.count, 0);

    const key = await call(apiKeysRoute, "POST", "/api/api-keys", operatorIn(acme.slug), { name: "support", role: "support" });
    assert.equal(key.status, 201, key.text);
    const support = { authorization: `Bearer ${key.json.key as string}` };
    assert.equal((await call(channelsRoute, "GET", "/api/alerts/channels", support)).status, 200);
    assert.equal((await call(channelsRoute, "POST", "/api/alerts/channels", support, { kind: "email", to: "x@acme.test" })).status, 403);
    assert.equal((await call(channelRoute, "DELETE", `/api/alerts/channels/${row.id}`, support, undefined, { id: row.id })).status, 403);

    const foreign = await call(channelRoute, "DELETE", `/api/alerts/channels/${row.id}`, operatorIn(globex.slug), undefined, { id: row.id });
    assert.equal(foreign.status, 404);
    assert.equal((await (await db()).alertChannel.findUniqueOrThrow({ where: { id: row.id } })).disabledAt, null, "untouched");
    assert.equal((await call(channelRoute, "DELETE", `/api/alerts/channels/${row.id}`, operatorIn(acme.slug), undefined, { id: row.id })).status, 204);
    assert.equal((await call(channelRoute, "DELETE", `/api/alerts/channels/${row.id}`, operatorIn(acme.slug), undefined, { id: row.id })).status, 404);
    const erased = await (await db()).alertChannel.findUniqueOrThrow({ where: { id: row.id } });
    assert.equal(erased.secretCiphertext, null);
    assert.equal((await call(channelsRoute, "GET", "/api/alerts/channels", operatorIn(acme.slug))).json.count, 2);
  });

  test("GET /api/alerts/incidents lists the caller's organization's incidents only", async () => {
    const client = await db();
    const mine = await newOrganization();
    const theirs = await newOrganization();
    for (const org of [mine.id, theirs.id]) await client.deadLetter.create({ data: deadLetter(org, "evt_list", at(-MINUTE)) });
    await evaluateOrganization(client, mine.id, T0);
    await evaluateOrganization(client, theirs.id, T0);
    const operatorIn = { authorization: `Bearer ${TEST_API_TOKEN}`, "acredita-org": mine.slug };
    const listed = await call(incidentsRoute, "GET", "/api/alerts/incidents?status=open", operatorIn);
    assert.equal(listed.status, 200);
    assert.equal(listed.json.count, 1);
    const [incident] = listed.json.data as { rule: string; status: string; count: number }[];
    assert.deepEqual([incident.rule, incident.status, incident.count], ["dead_letter_open", "open", 1]);
    assert.equal((await call(incidentsRoute, "GET", "/api/alerts/incidents?status=resolved", operatorIn)).json.count, 0);
  });
});

describe("the evaluator in a worker", () => {
  test("a dead letter recorded in this process wakes it: the incident opens without waiting for the interval", async () => {
    const { id: org } = await newOrganization();
    // Ten minutes between evaluations: only the wake-up can open it within the test.
    const scheduler = new AlertScheduler(db, { intervalMs: 600_000 });
    scheduler.start();
    try {
      // The first evaluation runs at start; the dead letter comes after it.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      assert.equal((await incidents(org)).length, 0);
      const failure = new ApplyFailure("unknown_order", because("unknown_order", { orderId: "ord_wake" }), "ord_wake");
      await recordDeadLetter(await db(), { organizationId: org, key: { provider: "lab", account: "lab", livemode: true, eventId: `evt_wake_${org}` }, endpoint: "lab", eventType: "payment.approved", bodyHash: "h", payload: "{}", orderId: "ord_wake", failure });
      const deadline = Date.now() + 5_000;
      while ((await incidents(org)).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual((await incidents(org)).map((incident) => [incident.rule, incident.status]), [["dead_letter_open", "open"]]);
    } finally {
      await scheduler.stop();
    }
  });
});
