import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rotationStatus } from "@/lib/endpoints/endpoint-health";

const NOW = new Date("2026-12-01T12:00:00.000Z");
const ago = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000);
const statuses = (active: string[], retired: string[], seen: Record<string, Date>) =>
  rotationStatus(active, retired, new Map(Object.entries(seen)), NOW).map((secret) => `${secret.label}:${secret.kind}:${secret.status}:${secret.lastSeenAt ?? "-"}`);

describe("rotation status", () => {
  test("the old secret quiet for 3 days while the new one matches is safe to retire; the new one is in use", () => {
    assert.deepEqual(statuses(["S[0]", "S[1]"], [], { "S[0]": ago(0.5), "S[1]": ago(72) }), ["S[0]:active:in_use:2026-12-01T11:30:00.000Z", "S[1]:active:safe_to_retire:2026-11-28T12:00:00.000Z"]);
  });

  test("quiet for less than 24 h is still in use, even when another secret matched later", () => {
    assert.deepEqual(statuses(["S[0]", "S[1]"], [], { "S[0]": ago(1), "S[1]": ago(23.9) }), ["S[0]:active:in_use:2026-12-01T11:00:00.000Z", "S[1]:active:in_use:2026-11-30T12:06:00.000Z"]);
  });

  test("a new secret nothing matched yet is not offered for retirement, and a lone secret quiet for days stays in use", () => {
    assert.deepEqual(statuses(["S[0]", "S[1]"], [], { "S[1]": ago(100) }), ["S[0]:active:no_match_yet:-", "S[1]:active:in_use:2026-11-27T08:00:00.000Z"]);
    assert.deepEqual(statuses(["S[0]"], [], {}), ["S[0]:active:no_match_yet:-"]);
  });

  test("a retired secret tried within 7 days is still being tried; older or never, not tried", () => {
    assert.deepEqual(statuses(["S[0]"], ["R[0]", "R[1]", "R[2]"], { "S[0]": ago(1), "R[0]": ago(2), "R[1]": ago(24 * 7 + 1) }), [
      "S[0]:active:in_use:2026-12-01T11:00:00.000Z",
      "R[0]:retired:still_tried:2026-12-01T10:00:00.000Z",
      "R[1]:retired:not_tried:2026-11-24T11:00:00.000Z",
      "R[2]:retired:not_tried:-",
    ]);
  });

  test("the public demo secret is flagged whatever it matched, and never counts as the newer secret", () => {
    assert.deepEqual(statuses(["S[demo]"], [], { "S[demo]": ago(1) }), ["S[demo]:demo:public_demo:2026-12-01T11:00:00.000Z"]);
  });
});
