import assert from "node:assert/strict";
import { test } from "node:test";
import { safeNextPath } from "@/lib/http/next-path";

test("same-site paths are followed, with their query and fragment", () => {
  assert.equal(safeNextPath("/dead-letters?tab=resolved"), "/dead-letters?tab=resolved");
  assert.equal(safeNextPath("/orders/ord_1041#ledger"), "/orders/ord_1041#ledger");
  assert.equal(safeNextPath(["/review", "/x"]), "/review");
  assert.equal(safeNextPath(undefined), "/orders");
  assert.equal(safeNextPath(""), "/orders");
});

test("every way out of the site falls back to /orders", () => {
  const nasty = [
    "//evil.example",
    "//evil.example/x",
    "///evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "/\t/evil.example/",
    "/\n/evil.example",
    "/\r\n/evil.example",
    "/\u0000/evil.example",
    "/\u001f/evil.example",
    "/\u007f/evil.example",
    "/.//evil.example",
    "/./\t/evil.example",
    "https://evil.example",
    "http:evil.example",
    "HTTPS://evil.example",
    " https://evil.example",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "/javascript:alert(1)".replace(/^\//, ""),
    "data:text/html,<script>alert(1)</script>",
    "evil.example",
    "/%09/evil.example".replace("%09", "\t"),
    "/" + "a".repeat(2_048),
  ];
  for (const value of nasty) assert.equal(safeNextPath(value), "/orders", JSON.stringify(value));
});

test("encoded slashes stay encoded: a path on this site, never a host", () => {
  assert.equal(safeNextPath("/%2F%2Fevil.example"), "/%2F%2Fevil.example");
  assert.equal(safeNextPath("/%5C%5Cevil.example"), "/%5C%5Cevil.example");
  assert.equal(safeNextPath("/%09/evil.example"), "/%09/evil.example");
  assert.equal(safeNextPath("/orders/../dead-letters"), "/dead-letters");
});
