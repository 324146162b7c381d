// .env.example is the list a new operator copies: every setting lib/config/settings.ts reads, each
// with the default it takes while unset (none for a secret). This fails when a setting is added, renamed
// or given another default without the file following.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { SETTING_NAMES, settingDefaultText } from "@/lib/config/settings";

const EXAMPLE = readFileSync(path.join(__dirname, "..", "..", ".env.example"), "utf8");
/** `# NAME=value` lines: commented out, so a copy to .env changes nothing until a line is uncommented. */
const listed = new Map([...EXAMPLE.matchAll(/^# ([A-Z][A-Z0-9_]*)=(.*)$/gm)].map(([, name, value]) => [name, value]));

test(".env.example lists every setting of lib/config/settings.ts with its default, and nothing set", () => {
  const missing = SETTING_NAMES.filter((name) => !listed.has(name));
  assert.deepEqual(missing, []);
  for (const name of SETTING_NAMES) assert.equal(listed.get(name), settingDefaultText(name) ?? "", name);
  assert.deepEqual(EXAMPLE.split("\n").filter((line) => line !== "" && !line.startsWith("#")), [], "every line is a comment");
});

test("a few defaults as the README states them", () => {
  assert.equal(listed.get("PORT"), "3000");
  assert.equal(listed.get("WEBHOOK_PROCESSING_MODE"), "inbox");
  assert.equal(listed.get("AUTH_SECRET"), "");
  assert.equal(listed.get("STRIPE_WEBHOOK_SECRET"), "");
});
