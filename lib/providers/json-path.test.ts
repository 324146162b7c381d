import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseJsonPath, readJsonPath } from "@/lib/providers/json-path";

describe("JSON paths for field mappings", () => {
  test("parses dotted keys, indexes and quoted keys", () => {
    assert.deepEqual(parseJsonPath("$.data.order_id"), ["data", "order_id"]);
    assert.deepEqual(parseJsonPath("$.items[2].id"), ["items", 2, "id"]);
    assert.deepEqual(parseJsonPath('$["order.id"].x'), ["order.id", "x"]);
  });

  test("refuses everything outside the subset", () => {
    for (const path of ["data.order_id", "$", "$..id", "$.items[*]", "$[?(@.x)]", "$.a.", "$.a b", '$["unterminated]', '$["bad\\x"]']) assert.equal(parseJsonPath(path), undefined, path);
  });

  test("reads own properties only; a missing step is undefined", () => {
    const document = { data: { order_id: "ord_1", items: [{ id: "a" }] } };
    assert.equal(readJsonPath(document, ["data", "order_id"]), "ord_1");
    assert.equal(readJsonPath(document, ["data", "items", 0, "id"]), "a");
    assert.equal(readJsonPath(document, ["data", "items", 1, "id"]), undefined);
    assert.equal(readJsonPath(document, ["data", "constructor"]), undefined);
    assert.equal(readJsonPath(document, ["data", "__proto__"]), undefined);
    assert.equal(readJsonPath("text", ["length"]), undefined);
  });
});
