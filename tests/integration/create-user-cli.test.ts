import { TEST_DB } from "@/e2e/support/test-env";
// `npm run create-user` applies the password rule: a short or common password is refused with the
// reason (exit 2) and creates nothing; a strong one creates the user, hashed. The command's main runs in
// this process (e2e/http/cli-smoke.test.ts runs the script itself once).
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { createUserAs } from "@/lib/auth/users";
import { createOrganization } from "@/lib/organizations/organizations";
import { closeDb, db } from "@/lib/db/client";
import { runMain } from "@/e2e/support/cli";
import { main } from "@/scripts/create-user";

async function createUser(password: string, email = "ana@shop.test", ...flags: string[]) {
  const result = await runMain(main, ["--email", email, "--name", "Ana Lopez", "--role", "admin", ...flags], { ...process.env, DATABASE_URL: TEST_DB.url, ACREDITA_NEW_PASSWORD: password });
  return { code: result.code, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
}

after(closeDb);

test("a short, a common and a self-named password are refused with the reason; nothing is created", async () => {
  assert.deepEqual(await createUser("Xy7#short"), { code: 2, stdout: "", stderr: "create-user: password: too short: at least 12 characters" });
  assert.deepEqual(await createUser("password1234"), {
    code: 2,
    stdout: "",
    stderr: "create-user: password: too weak (strength 1 of 4, 3 needed): This is similar to a commonly used password. Add more words that are less common.",
  });
  // In es-AR (--locale): the reason and zxcvbn's advice in Spanish; an unknown option is a usage error, not a stack trace.
  assert.deepEqual(await createUser("contraseña123", "ana@shop.test", "--locale", "es-AR"), { code: 2, stdout: "", stderr: "create-user: password: demasiado débil (fortaleza 1 de 4, se necesita 3): Agregá más palabras menos comunes." });
  const unknown = await createUser("amber-kettle-meadow-41", "ana@shop.test", "--bogus");
  assert.deepEqual([unknown.code, unknown.stdout, unknown.stderr.split("\n").at(-1)], [2, "", 'usage: npm run create-user -- --email a@b.c [--name "Ana"] [--role merchant|support|admin] [--org <slug>] [--locale en|es-AR]']);
  const self = await createUser("ana.lopez@shop.test", "ana.lopez@shop.test");
  assert.equal(self.code, 2);
  assert.match(self.stderr, /^create-user: password: too weak \(strength 0 of 4, 3 needed\): There should not be any personal or page related data\./);
  assert.equal(await (await db()).user.count(), 0);
});

test("a strong password creates the user, stored hashed", async () => {
  assert.deepEqual(await createUser("saffron-glacier-tunnel-88"), { code: 0, stdout: "created ana@shop.test (admin)", stderr: "" });
  const account = await (await db()).account.findFirstOrThrow({ select: { password: true } });
  assert.ok(account.password && !account.password.includes("saffron"));
});

test("while the demo runs, the dashboard creates no user (the next npm run demo would refuse the database)", async () => {
  const admin = { id: "admin_1", email: "admin@acredita.test", name: "Admin", role: "admin", organizationId: "org_default" } as const;
  const input = { email: "eve@shop.test", name: "Eve", role: "merchant" as const, password: "amber-kettle-meadow-41" };
  const before = await (await db()).user.count();
  process.env.ACREDITA_MODE = "demo";
  try {
    assert.deepEqual(await createUserAs(await db(), admin, input), { kind: "demo_mode" });
  } finally {
    delete process.env.ACREDITA_MODE;
  }
  assert.equal(await (await db()).user.count(), before);
  assert.equal(await (await db()).auditEntry.count({ where: { action: "user.create" } }), 0);
  assert.equal((await createUserAs(await db(), admin, input)).kind, "created");
});

test("a password typed on stdin is never echoed: stderr has the prompt, not the password", async () => {
  const typed = await runMain(main, ["--email", "echo@shop.test", "--name", "Echo Test"], { ...process.env, DATABASE_URL: TEST_DB.url, ACREDITA_NEW_PASSWORD: "" }, { stdin: "Secret-Pw-Leak-9471-zq\n" });
  assert.equal(typed.code, 0, typed.stderr);
  assert.equal(typed.stdout.trim(), "created echo@shop.test (merchant)");
  assert.equal(typed.stderr.includes("Secret-Pw-Leak-9471-zq"), false, typed.stderr);
  assert.equal(typed.stderr, "Password (12-128 characters, not a common one): \n");
});

test("standard input that ends before a password, or a bad field, exits 2 and creates nothing (it exited 0 before)", async () => {
  const run = async (args: string[]) => {
    const result = await runMain(main, args, { ...process.env, DATABASE_URL: TEST_DB.url, ACREDITA_NEW_PASSWORD: "" }, { stdin: "" });
    return { code: result.code, lastLine: result.stderr.trim().split("\n").at(-1) };
  };
  const before = await (await db()).user.count();
  assert.deepEqual(await run(["--email", "eof@shop.test", "--role", "admin"]), { code: 2, lastLine: "create-user: no password given (standard input ended before a line); set ACREDITA_NEW_PASSWORD or type it" });
  const usage = 'usage: npm run create-user -- --email a@b.c [--name "Ana"] [--role merchant|support|admin] [--org <slug>] [--locale en|es-AR]';
  assert.deepEqual(await run(["--email", "eof@shop.test", "--role", "owner"]), { code: 2, lastLine: usage });
  assert.deepEqual(await run(["--role", "admin"]), { code: 2, lastLine: usage });
  assert.equal(await (await db()).user.count(), before);
});

test("--org makes the user a member of that organization with --role; without it, of the default one; an unknown slug exits 2 with one line", async () => {
  const client = await db();
  await createOrganization(client, { slug: "acme-cli", name: "Acme" }, { id: "test", email: "test@example.test" });
  const env = { ...process.env, DATABASE_URL: TEST_DB.url, ACREDITA_NEW_PASSWORD: "saffron-glacier-tunnel-88" };
  const inAcme = await runMain(main, ["--email", "org-admin@acme.test", "--name", "Olga Admin", "--role", "admin", "--org", "acme-cli"], env);
  assert.deepEqual([inAcme.code, inAcme.stdout, inAcme.stderr], [0, "created org-admin@acme.test (admin in acme-cli)\n", ""]);
  const inDefault = await runMain(main, ["--email", "org-support@shop.test", "--name", "Dario Support", "--role", "support"], env);
  assert.deepEqual([inDefault.code, inDefault.stdout, inDefault.stderr], [0, "created org-support@shop.test (support)\n", ""]);
  const unknown = await runMain(main, ["--email", "nobody@acme.test", "--role", "admin", "--org", "no-such-org"], env);
  assert.deepEqual([unknown.code, unknown.stdout, unknown.stderr], [2, "", "create-user: --org no-such-org: no organization has this slug (npm run orgs -- list)\n"]);

  const rows = await client.membership.findMany({ where: { user: { email: { in: ["org-admin@acme.test", "org-support@shop.test", "nobody@acme.test"] } } }, select: { user: { select: { email: true, role: true } }, organization: { select: { slug: true } }, role: true }, orderBy: { role: "asc" } });
  // User.role mirrors the default organization's membership: "merchant" for a user who has none there.
  assert.deepEqual(rows.map((row) => [row.user.email, row.organization.slug, row.role, row.user.role]), [
    ["org-admin@acme.test", "acme-cli", "admin", "merchant"],
    ["org-support@shop.test", "default", "support", "support"],
  ]);
  assert.equal(await client.user.count({ where: { email: "nobody@acme.test" } }), 0);
});
