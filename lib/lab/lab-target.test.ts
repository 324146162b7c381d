import assert from "node:assert/strict";
import { test } from "node:test";
import { labSettlementPath, labTarget, labWaitSeconds, probeServer, productionRefusal, serverProblem } from "@/lib/lab/lab-target";

test("--url wins, then PORT, then port 3000", () => {
  assert.deepEqual(labTarget(["--url", "http://10.0.0.5:8080/"], { PORT: "4000" }), { url: "http://10.0.0.5:8080" });
  assert.deepEqual(labTarget(["--compare", "--url=https://acredita.example"], {}), { url: "https://acredita.example" });
  assert.deepEqual(labTarget([], { PORT: "4000" }), { url: "http://127.0.0.1:4000" });
  assert.deepEqual(labTarget(["--json"], { PORT: " " }), { url: "http://127.0.0.1:3000" });
  assert.deepEqual(labTarget([], {}), { url: "http://127.0.0.1:3000" });
});

test("a missing or unusable --url or PORT is an error sentence", () => {
  assert.deepEqual(labTarget(["--url"], {}), { error: "--url needs a value, e.g. --url http://127.0.0.1:3000" });
  assert.deepEqual(labTarget(["--url", "--compare"], {}), { error: "--url needs a value, e.g. --url http://127.0.0.1:3000" });
  assert.deepEqual(labTarget(["--url", "localhost:3000"], {}), { error: "--url localhost:3000 must be http:// or https://" });
  assert.deepEqual(labTarget(["--url", "not a url"], {}), { error: "--url not a url is not a URL; use e.g. --url http://127.0.0.1:3000" });
  assert.deepEqual(labTarget([], { PORT: "70000" }), { error: "PORT=70000 is not a port (1 to 65535)" });
});

test("a server that answers something else than Acredita's liveness is named", async () => {
  const fake = (async () => new Response("nope", { status: 404 })) as typeof fetch;
  assert.equal(
    await serverProblem("http://127.0.0.1:9", fake),
    "http://127.0.0.1:9 answers, but not as Acredita (GET /api/health/live: HTTP 404). Start one in another terminal with `npm run demo` (or `npm start`), or point the lab at a running server with --url <url> or PORT.",
  );
  assert.equal(await serverProblem("http://127.0.0.1:9", (async () => Response.json({ ok: true })) as typeof fetch), undefined);
});

test("the target's mode is read from its liveness answer; a production or silent target is refused without --allow-production", async () => {
  assert.deepEqual(await probeServer("http://127.0.0.1:9", (async () => Response.json({ ok: true, mode: "demo" })) as typeof fetch), { mode: "demo" });
  assert.deepEqual(await probeServer("http://127.0.0.1:9", (async () => Response.json({ ok: true })) as typeof fetch), { mode: undefined });
  assert.equal(productionRefusal("demo", "http://127.0.0.1:3000", []), undefined);
  assert.equal(productionRefusal("production", "http://127.0.0.1:3000", ["--allow-production"]), undefined);
  assert.equal(
    productionRefusal(undefined, "http://10.0.0.5:3000", []),
    "http://10.0.0.5:3000 does not say which mode it runs in, so the lab takes it for a production server: it would create its five demo orders and pay them in that server's database. Pass --allow-production to play it there anyway.",
  );
});

test("the settlement goes beside the target's data: this environment's database for its own server, else a folder per target", () => {
  assert.equal(labSettlementPath("http://127.0.0.1:3000", {}), "data/lab/settlement.csv");
  assert.equal(labSettlementPath("http://localhost:3105", { PORT: "3105", DATABASE_URL: "file:/srv/acredita/prod.db" }), "/srv/acredita/lab/settlement.csv");
  assert.equal(labSettlementPath("http://127.0.0.1:3000", { DATABASE_URL: "postgresql://u:p@db:5432/acredita" }), "data/lab/settlement.csv");
  assert.equal(labSettlementPath("http://127.0.0.1:3105", {}), "data/lab/127.0.0.1-3105/settlement.csv");
  assert.equal(labSettlementPath("https://acredita.example", { PORT: "443" }), "data/lab/acredita.example-443/settlement.csv");
});

test("--wait takes whole seconds from 1 to 3600", () => {
  assert.equal(labWaitSeconds([]), 60);
  assert.equal(labWaitSeconds(["--wait", "5"]), 5);
  assert.deepEqual(labWaitSeconds(["--wait", "1.5"]), { error: "--wait needs a number of seconds from 1 to 3600 (got 1.5)" });
  assert.deepEqual(labWaitSeconds(["--wait"]), { error: "--wait needs a number of seconds from 1 to 3600 (got nothing)" });
});
