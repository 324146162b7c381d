import assert from "node:assert/strict";
import { test } from "node:test";
import { passwordProblem, passwordReason } from "@/lib/auth/passwords";
import { cliReasons } from "@/lib/reasons/cli-reasons";

test("passwords under 12 characters are refused, saying so", () => {
  assert.equal(passwordProblem("kT9#vQ2!mLp"), "too short: at least 12 characters");
  assert.equal(passwordProblem("x".repeat(129)), "too long: at most 128 characters");
});

test("common, keyboard-row and repeated passwords of 12+ characters are refused with zxcvbn's reason", () => {
  // Spanish ones too (the dashboard's people write es-AR): zxcvbn's Spanish dictionary beside the English one.
  for (const weak of ["password1234", "qwertyuiop12", "aaaaaaaaaaaa", "123456789012", "iloveyou2026", "contraseña123", "teamo12345678"]) {
    const problem = passwordProblem(weak);
    assert.ok(problem?.startsWith("too weak (strength "), `${weak}: ${problem}`);
    assert.match(problem!, /3 needed\): \S/, `${weak} says why: ${problem}`);
  }
});

test("the person's own email or name makes a password weak", () => {
  assert.equal(passwordProblem("ana.lopez@example.com"), null);
  assert.equal(
    passwordProblem("ana.lopez@example.com", ["ana.lopez@example.com", "Ana Lopez"]),
    "too weak (strength 0 of 4, 3 needed): There should not be any personal or page related data. Add more words that are less common.",
  );
});

test("long random or passphrase passwords pass", () => {
  for (const strong of ["kT9#vQ2!mLp7wZ", "correct horse battery staple", "acredita-admin-2026"]) assert.equal(passwordProblem(strong), null, strong);
});

test("the refusal is a reason: zxcvbn's feedback reads in es-AR, its English stays the message", () => {
  const reason = passwordReason("password1234");
  assert.equal(reason?.reason, passwordProblem("password1234"));
  assert.equal(reason?.reasonRef.code, "password_too_weak_because");
  const spanish = cliReasons("es-AR").render(reason!.reasonRef, "");
  assert.match(spanish, /^demasiado débil \(fortaleza \d de 4, se necesita 3\): \S/);
  assert.ok(!/[a-z]+ (is|are) /.test(spanish), spanish);
  assert.equal(cliReasons("en").render(reason!.reasonRef, ""), reason?.reason);
  assert.equal(cliReasons("es-AR").render(passwordReason("short")!.reasonRef, ""), "demasiado corta: al menos 12 caracteres");
});

test("zxcvbn reads the first 64 characters: a weak start is refused whatever follows (and one check's work is bounded)", () => {
  const strongTail = "kT9#vQ2!mLp7wZ-amber-kettle-meadow-41-velvet-compass-orchard";
  assert.equal(passwordProblem(`${"velvet-compass-orchard-amber-kettle-meadow-41"}${strongTail}`.slice(0, 128)), null);
  const weakStart = `${"a".repeat(64)}${strongTail}`;
  assert.equal(weakStart.length <= 128, true);
  assert.match(passwordProblem(weakStart) ?? "", /^too weak \(strength [0-2] of 4, 3 needed\)/);
});
