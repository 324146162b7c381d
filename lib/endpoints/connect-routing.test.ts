import assert from "node:assert/strict";
import { test } from "node:test";
import { routeConnectEvent } from "@/lib/endpoints/connect-routing";
import type { ServedEndpoint } from "@/lib/endpoints/endpoints";

const platform: ServedEndpoint = {
  name: "ep_connectroutingtest01",
  organizationId: "org_platform",
  provider: "stripe",
  account: "acct_platform",
  livemode: true,
  mode: "inline",
  secrets: [],
  retiredSecrets: [],
  toleranceSeconds: 300,
  connect: { bindings: new Map([["acct_client1", "org_client1"]]) },
};

test("a bound connected account's event is its organization's, scoped by the connected account", () => {
  const routed = routeConnectEvent(platform, "acct_client1");
  assert.deepEqual([routed.name, routed.organizationId, routed.account, routed.livemode], ["ep_connectroutingtest01", "org_client1", "acct_client1", true]);
});

test("an event without account, or naming the platform's own, is the platform's: the endpoint unchanged", () => {
  assert.equal(routeConnectEvent(platform, undefined), platform);
  assert.equal(routeConnectEvent(platform, "acct_platform"), platform);
});

test("an unbound account's event keeps the endpoint (its account differs: the organisation check ignores it)", () => {
  assert.equal(routeConnectEvent(platform, "acct_client9"), platform);
});

test("an endpoint that is not a Connect endpoint never routes, whatever the event names", () => {
  const plain: ServedEndpoint = { ...platform, connect: undefined };
  assert.equal(routeConnectEvent(plain, "acct_client1"), plain);
});
