import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, test } from "node:test";
import { assertOutboundUrl, isNonPublicAddress, OutboundUrlError, pinnedLookup, resolveOutboundUrl } from "@/lib/net/outbound-url";
import { postWithIdempotencyKey } from "@/lib/outbox/post-with-idempotency-key";

const publicResolve = async () => ["93.184.215.14"];

async function refusal(url: string, resolve = publicResolve): Promise<string> {
  try {
    await assertOutboundUrl(url, { allowPrivate: false, resolve });
  } catch (error) {
    assert.ok(error instanceof OutboundUrlError);
    assert.ok(!error.message.includes(url), "the message never repeats the URL");
    return error.refusal;
  }
  return "accepted";
}

describe("outbound URLs (alert channels): https to public addresses only", () => {
  test("loopback, private, link-local (metadata), CGNAT, unique-local and mapped addresses are not public; public ones are", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "100.127.255.254", "0.0.0.0", "::1", "::", "fd00::1", "fc12:3456::1", "fe80::1", "::ffff:127.0.0.1", "::ffff:a9fe:a9fe", "::ffff:10.0.0.1", "224.0.0.1", "not an address"])
      assert.equal(isNonPublicAddress(address), true, address);
    for (const address of ["93.184.215.14", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111"]) assert.equal(isNonPublicAddress(address), false, address);
  });

  test("each refusal has its code; a public https URL passes", async () => {
    assert.equal(await refusal("https://hooks.example.com/alerts"), "accepted");
    assert.equal(await refusal("http://hooks.example.com/alerts"), "not_https");
    assert.equal(await refusal("ftp://hooks.example.com/"), "not_https");
    assert.equal(await refusal("not a url"), "invalid_url");
    assert.equal(await refusal("https://user:pass@hooks.example.com/"), "credentials_in_url");
    assert.equal(await refusal("https://127.0.0.1/hook"), "private_address");
    assert.equal(await refusal("https://169.254.169.254/latest/meta-data/"), "private_address");
    assert.equal(await refusal("https://10.0.0.5/"), "private_address");
    assert.equal(await refusal("https://100.64.1.1/"), "private_address");
    assert.equal(await refusal("https://[::1]/"), "private_address");
    assert.equal(await refusal("https://[fd00::1]/"), "private_address");
    assert.equal(await refusal("https://[::ffff:169.254.169.254]/"), "private_address");
    // A public name that resolves to a private address (among others) is refused.
    assert.equal(await refusal("https://internal.example.com/", async () => ["93.184.215.14", "192.168.0.10"]), "private_address");
    assert.equal(await refusal("https://nowhere.example.com/", async () => { throw new Error("ENOTFOUND"); }), "unresolvable");
  });

  test("ALERTS_ALLOW_PRIVATE_URLS: http and private addresses pass, other schemes still do not", async () => {
    assert.equal((await assertOutboundUrl("http://127.0.0.1:9/hook", { allowPrivate: true })).port, "9");
    await assert.rejects(assertOutboundUrl("file:///etc/passwd", { allowPrivate: true }), (error: unknown) => error instanceof OutboundUrlError && error.refusal === "not_https");
  });
});

describe("DNS rebinding: a send goes to the addresses its check resolved", () => {
  test("the check returns what it resolved (none for an address literal, or with ALERTS_ALLOW_PRIVATE_URLS)", async () => {
    let asked = 0;
    const rebinding = async () => (asked++ === 0 ? ["93.184.215.14"] : ["127.0.0.1"]);
    assert.deepEqual((await resolveOutboundUrl("https://hooks.example.test/a", { allowPrivate: false, resolve: rebinding })).addresses, ["93.184.215.14"]);
    // A second look would be refused: the pinned first answer is what a send connects to.
    assert.equal(await refusal("https://hooks.example.test/a", rebinding), "private_address");
    assert.equal((await resolveOutboundUrl("https://93.184.215.14/a", { allowPrivate: false })).addresses, undefined);
    assert.equal((await resolveOutboundUrl("http://localhost:9/a", { allowPrivate: true })).addresses, undefined);
  });

  test("a request pinned to an address never asks DNS: a name that cannot resolve reaches the pinned address; unpinned it is not sent", async () => {
    const hits: string[] = [];
    const server = createServer((request, response) => {
      hits.push(`${request.headers.host} ${request.url}`);
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const target = `http://rebind.invalid:${port}/hook`;
      const pinned = await postWithIdempotencyKey(target, "{}", "key-1", 5_000, {}, { lookup: pinnedLookup(["127.0.0.1"]) });
      assert.deepEqual(pinned, { kind: "answered", statusCode: 204 });
      assert.deepEqual(hits, [`rebind.invalid:${port} /hook`]);
      const unpinned = await postWithIdempotencyKey(target, "{}", "key-2", 5_000);
      assert.equal(unpinned.kind, "not_sent");
      assert.equal(hits.length, 1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
