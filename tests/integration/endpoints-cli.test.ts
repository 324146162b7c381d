import { TEST_DB } from "@/e2e/support/test-env";
// `npm run endpoints`: a production start needs no endpoint variable: the operator makes an organization,
// then its endpoints stored as data from the command line. A Stripe endpoint takes its signing secret
// from standard input (never the command line) and never prints it; a Standard Webhooks endpoint gets
// one made by Acredita, printed once; a delivery signed with it is credited in that organization's books.
// Refusals: usage, an unknown organization, a field, an account another organization owns. In process
// (e2e/http/cli-smoke.test.ts runs the script once).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, test } from "node:test";
import { runMain } from "@/e2e/support/cli";
import { closeDb, db } from "@/lib/db/client";
import { receiveWebhook } from "@/lib/ingest/receive-webhook";
import { standardWebhooksHeaders } from "@/e2e/support/providers";
import { main as orgs } from "@/scripts/orgs";
import { main } from "@/scripts/endpoints";

process.env.ACREDITA_SECRETS_KEY = randomBytes(32).toString("base64");
after(closeDb);

const env = () => ({ ...process.env, DATABASE_URL: TEST_DB.url });
const run = (argv: string[], stdin?: string) => runMain(main, argv, env(), stdin === undefined ? {} : { stdin });
const STRIPE_SECRET = "whsec_cli_endpoint_secret_0001";

test("the operator makes an organization's Stripe endpoint with the secret on standard input (never printed) and a Standard Webhooks endpoint with a secret Acredita makes; list shows them, without secrets", async () => {
  assert.equal((await runMain(orgs, ["create", "--slug", "cli-shop", "--name", "CLI Shop"], env())).code, 0);
  const stripe = await run(["create", "--org", "cli-shop", "--provider", "stripe", "--account", "acct_clishop1", "--secret-stdin"], `${STRIPE_SECRET}\n`);
  assert.equal(stripe.code, 0, stripe.stderr);
  assert.equal(stripe.stderr, "");
  assert.ok(!stripe.stdout.includes(STRIPE_SECRET), "the supplied secret is never printed");
  const made = JSON.parse(stripe.stdout) as Record<string, unknown>;
  assert.match(made.id as string, /^ep_[a-z0-9]{20}$/);
  assert.deepEqual(
    { url: made.url, provider: made.provider, account: made.account, livemode: made.livemode, status: made.status, secret: made.secret },
    { url: `/api/webhooks/${made.id}`, provider: "stripe", account: "acct_clishop1", livemode: true, status: "enabled", secret: undefined },
  );

  const sw = await run(["create", "--org", "cli-shop", "--provider", "standard-webhooks", "--account", "sender_clishop", "--mode", "test", "--processing-mode", "inline"]);
  assert.equal(sw.code, 0, sw.stderr);
  const generated = JSON.parse(sw.stdout) as { id: string; secret: string; livemode: boolean; processingMode: string };
  assert.match(generated.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  assert.deepEqual([generated.livemode, generated.processingMode], [false, "inline"]);

  // The organization's order, paid through the new endpoint, in its own books.
  const client = await db();
  const organization = await client.organization.findUniqueOrThrow({ where: { slug: "cli-shop" } });
  await client.order.create({ data: { organizationId: organization.id, id: "ord_cli_1", amount: 2500, currency: "USD", livemode: false } });
  const body = JSON.stringify({ type: "payment.succeeded", timestamp: new Date().toISOString(), data: { payment_id: "pay_cli_1", order_id: "ord_cli_1", amount: 2500, currency: "USD", livemode: false } });
  const headers = standardWebhooksHeaders("msg_cli_1", body, generated.secret);
  const answer = await receiveWebhook({ endpointName: generated.id, headers: new Headers({ "content-type": "application/json", ...headers }), body: Buffer.from(body), now: new Date() });
  assert.deepEqual([answer.status, answer.body.outcome], [200, "applied"], JSON.stringify(answer.body));
  assert.deepEqual(
    await client.ledgerEntry.findMany({ where: { orderId: "ord_cli_1" }, select: { organizationId: true, amount: true } }),
    [{ organizationId: organization.id, amount: 2500 }],
  );

  const listed = await run(["list", "--org", "cli-shop"]);
  assert.equal(listed.code, 0, listed.stderr);
  const lines = listed.stdout.trim().split("\n").map((line) => JSON.parse(line) as { id: string; secret?: string });
  assert.deepEqual(lines.map((line) => line.id).sort(), [made.id as string, generated.id].sort());
  assert.ok(lines.every((line) => line.secret === undefined) && !listed.stdout.includes(STRIPE_SECRET) && !listed.stdout.includes(generated.secret));
  // The default organization's list holds none of them.
  assert.equal((await run(["list"])).stdout, "");
});

test("refusals: usage (2), an unknown organization (2), a field (2, never the value), a Stripe endpoint without its secret (2), an account another organization owns (1)", async () => {
  const usage = (await run(["delete"])).stderr;
  assert.match(usage, /^usage: npm run endpoints -- create --org <slug>/);
  assert.deepEqual(await run(["create", "--org", "nowhere-org", "--provider", "lab", "--account", "lab_x"]), { code: 2, stdout: "", stderr: "endpoints: --org nowhere-org: no organization has this slug (npm run orgs -- list)\n" });
  assert.deepEqual(await run(["create", "--provider", "lab"]), { code: 2, stdout: "", stderr: `endpoints: create needs --provider and --account\n${usage}` });
  assert.deepEqual(await run(["create", "--provider", "lab", "--account", "lab_x", "--mode", "sandbox"]), { code: 2, stdout: "", stderr: "endpoints: --mode sandbox: live or test\n" });
  const badProvider = await run(["create", "--provider", "paypal", "--account", "x"]);
  assert.equal(badProvider.code, 2);
  assert.match(badProvider.stderr, /^endpoints: provider: /);
  const noSecret = await run(["create", "--provider", "stripe", "--account", "acct_nosecret1"]);
  assert.deepEqual([noSecret.code, noSecret.stdout], [2, ""]);
  assert.match(noSecret.stderr, /^endpoints: secret: required for a stripe endpoint/);
  assert.deepEqual(await run(["create", "--provider", "stripe", "--account", "acct_nosecret1", "--secret-stdin"], ""), { code: 2, stdout: "", stderr: "endpoints: --secret-stdin: standard input was empty\n" });
  // acct_clishop1 is cli-shop's (the test above): the default organization may not take it.
  const taken = await run(["create", "--provider", "stripe", "--account", "acct_clishop1", "--secret-stdin"], STRIPE_SECRET);
  assert.deepEqual([taken.code, taken.stdout], [1, ""]);
  assert.match(taken.stderr, /^endpoints: account: stripe account acct_clishop1 \(live\) belongs to another organization/);
  assert.ok(!taken.stderr.includes(STRIPE_SECRET));
  assert.equal(await (await db()).endpoint.count({ where: { account: { in: ["acct_nosecret1"] } } }), 0);
});
