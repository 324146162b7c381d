import { TEST_DB } from "@/e2e/support/test-env";
// `npm run orgs`: create prints the organization as JSON (exit 0); a taken slug exits 1 and a bad slug or
// a missing flag exits 2, each with one line and nothing written; list prints one JSON object per line,
// oldest first. The command's main runs in this process (e2e/http/cli-smoke.test.ts runs the script once).
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { runMain } from "@/e2e/support/cli";
import { main } from "@/scripts/orgs";

after(closeDb);

const run = (...argv: string[]) => runMain(main, argv, { ...process.env, DATABASE_URL: TEST_DB.url });

test("create prints {id, slug, name} as JSON; the slug is then taken (exit 1, one line, nothing written)", async () => {
  const created = await run("create", "--slug", "acme", "--name", "Acme Payments");
  assert.equal(created.code, 0, created.stderr);
  assert.equal(created.stderr, "");
  const organization = JSON.parse(created.stdout) as { id: string; slug: string; name: string };
  assert.deepEqual(Object.keys(organization), ["id", "slug", "name"]);
  assert.match(organization.id, /^org_[a-z0-9]{20}$/);
  assert.deepEqual({ slug: organization.slug, name: organization.name }, { slug: "acme", name: "Acme Payments" });
  assert.equal(created.stdout, `${JSON.stringify(organization)}\n`);

  const again = await run("create", "--slug", "acme", "--name", "Another Acme");
  assert.deepEqual(again, { code: 1, stdout: "", stderr: "orgs: slug acme is taken by another organization\n" });
  assert.equal(await (await db()).organization.count(), 2);
  const audit = await (await db()).auditEntry.findMany({ where: { action: "organization.create" }, select: { actorEmail: true, targetId: true, note: true } });
  assert.deepEqual(audit, [{ actorEmail: "operator (npm run orgs)", targetId: organization.id, note: "acme: Acme Payments" }]);
});

test("a bad slug, a missing flag or an unknown command exits 2 with one line and writes nothing", async () => {
  const usage = "usage: npm run orgs -- create --slug <slug> --name <name> | list";
  assert.deepEqual(await run("create", "--slug", "Acme!", "--name", "Acme"), { code: 2, stdout: "", stderr: "orgs: slug: 2 to 40 characters of a-z, 0-9 and -\n" });
  assert.deepEqual(await run("create", "--slug", "a", "--name", "Acme"), { code: 2, stdout: "", stderr: "orgs: slug: 2 to 40 characters of a-z, 0-9 and -\n" });
  assert.deepEqual(await run("create", "--slug", "x".repeat(41), "--name", "Acme"), { code: 2, stdout: "", stderr: "orgs: slug: 2 to 40 characters of a-z, 0-9 and -\n" });
  assert.deepEqual(await run("create", "--slug", "beta"), { code: 2, stdout: "", stderr: `orgs: create needs --slug and --name\n${usage}\n` });
  assert.deepEqual(await run("create", "--slug", "beta", "--name", "  "), { code: 2, stdout: "", stderr: "orgs: name: required\n" });
  assert.deepEqual(await run("delete"), { code: 2, stdout: "", stderr: `${usage}\n` });
  assert.deepEqual(await run(), { code: 2, stdout: "", stderr: `${usage}\n` });
  assert.equal(await (await db()).organization.count({ where: { slug: { in: ["beta", "a"] } } }), 0);
});

test("list prints every organization, oldest first, one JSON object per line", async () => {
  const beta = JSON.parse((await run("create", "--slug", "beta-2", "--name", "Beta")).stdout) as { id: string };
  const listed = await run("list");
  assert.equal(listed.code, 0, listed.stderr);
  const lines = listed.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { id: string; slug: string; name: string });
  assert.deepEqual(
    lines.map((line) => [line.slug, line.name]),
    [
      ["default", "Default organization"],
      ["acme", "Acme Payments"],
      ["beta-2", "Beta"],
    ],
  );
  assert.deepEqual(lines[0], { id: "org_default", slug: "default", name: "Default organization" });
  assert.equal(lines[2].id, beta.id);
});
