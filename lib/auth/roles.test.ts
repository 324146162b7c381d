import assert from "node:assert/strict";
import { test } from "node:test";
import { assertCan, can, ForbiddenError, type Permission } from "@/lib/auth/roles";

const SUPPORT_ONLY: Permission[] = ["dead_letters.manage", "review.manage", "metrics.read", "endpoints.read", "payloads.read", "alerts.read"];
const ADMIN_ONLY: Permission[] = ["users.manage", "orders.create", "endpoints.manage", "alerts.manage"];
const EVERYONE: Permission[] = ["orders.read", "decisions.read", "reconciliation.read", "reconciliation.run", "dead_letters.read", "review.read"];

test("merchant reads and reconciles; support also manages dead letters and reviews; admin also users", () => {
  for (const permission of EVERYONE) for (const role of ["merchant", "support", "admin"]) assert.equal(can(role, permission), true, `${role} ${permission}`);
  for (const permission of SUPPORT_ONLY) {
    assert.equal(can("merchant", permission), false, permission);
    assert.equal(can("support", permission), true, permission);
    assert.equal(can("admin", permission), true, permission);
  }
  for (const permission of ADMIN_ONLY) {
    assert.equal(can("merchant", permission), false, permission);
    assert.equal(can("support", permission), false, permission);
    assert.equal(can("admin", permission), true, permission);
  }
});

test("an unknown role grants nothing, and assertCan throws ForbiddenError", () => {
  assert.equal(can("root", "orders.read"), false);
  assert.equal(can("", "orders.read"), false);
  assert.throws(() => assertCan({ role: "merchant" }, "dead_letters.manage"), ForbiddenError);
  assert.throws(() => assertCan(null, "orders.read"), ForbiddenError);
  assert.doesNotThrow(() => assertCan({ role: "support" }, "dead_letters.manage"));
});
