import assert from "node:assert/strict";
import { test } from "node:test";
import { organizationBase, splitOrganizationPath, withOrganizationBase } from "@/lib/http/organization-path";

test("a dashboard path names its organization by the /o/<slug> prefix; without one it is the default organization's", () => {
  assert.deepEqual(splitOrganizationPath("/o/acme/orders/A-1001"), { slug: "acme", path: "/orders/A-1001" });
  assert.deepEqual(splitOrganizationPath("/o/acme"), { slug: "acme", path: "/" });
  assert.deepEqual(splitOrganizationPath("/orders"), { slug: undefined, path: "/orders" });
  // Not a slug: no prefix (the page's own 404).
  assert.deepEqual(splitOrganizationPath("/o/A/orders"), { slug: undefined, path: "/o/A/orders" });
  assert.deepEqual(splitOrganizationPath("/o/x/orders"), { slug: undefined, path: "/o/x/orders" });
});

test("links get the organization's prefix; the default organization's and what is not a page keep theirs", () => {
  assert.equal(organizationBase("default"), "");
  assert.equal(organizationBase("acme"), "/o/acme");
  assert.equal(withOrganizationBase("/o/acme", "/orders?page=2"), "/o/acme/orders?page=2");
  assert.equal(withOrganizationBase("", "/orders"), "/orders");
  for (const href of ["/api/exports/orders.csv", "/sign-in", "/account/password", "https://dashboard.stripe.com/x", "#main", "/o/globex/orders", "//evil.example/x"]) {
    assert.equal(withOrganizationBase("/o/acme", href), href, href);
  }
});
