import assert from "node:assert/strict";
import { test } from "node:test";
import { terminalSafe } from "@/lib/format/terminal-safe";

test("escape sequences, C0/C1 controls and bidi overrides are shown escaped; text, tabs and newlines stay", () => {
  assert.equal(terminalSafe("evt_\u001b]0;PWNED\u0007\u001b[2J\u001b[31mFAKE"), "evt_\\x1b]0;PWNED\\x07\\x1b[2J\\x1b[31mFAKE");
  assert.equal(terminalSafe("ord_\u009b1A\r\u007f"), "ord_\\x9b1A\\x0d\\x7f");
  assert.equal(terminalSafe("pay\u202egnp.exe"), "pay\\u202egnp.exe");
  assert.equal(terminalSafe("a\tb\nc señal ¥500 $ 15.000,00"), "a\tb\nc señal ¥500 $ 15.000,00");
});
