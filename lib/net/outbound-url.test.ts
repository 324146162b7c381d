import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { assertOutboundUrl, isNonPublicAddress, OutboundUrlError } from "@/lib/net/outbound-url";

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
