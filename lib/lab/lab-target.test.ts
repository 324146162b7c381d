import assert from "node:assert/strict";
import { test } from "node:test";
import { labTarget, serverProblem } from "@/lib/lab/lab-target";

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
