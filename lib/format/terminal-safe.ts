/**
 * Characters a terminal would act on rather than show: C0 controls, DEL, C1 controls (ESC sequences
 * clear the screen, rewrite lines, set the window title) and the Unicode bidirectional overrides and
 * isolates (they reorder what is shown, "Trojan Source"). Tab and newline among them are kept in
 * lines printed ({@link terminalSafe}), never in an id ({@link holdsControlCharacters}).
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const ANY_CONTROL = new RegExp(UNSAFE.source);

/** Whether `text` holds any control character or bidirectional override, tab and newline included (ids never do). */
export function holdsControlCharacters(text: string): boolean {
  return ANY_CONTROL.test(text);
}

/**
 * Text safe to print on a terminal: every character of {@link UNSAFE} is shown as its escape
 * (`\x1b`, `\u202e`), so ids and fields that came from a provider's body or an uploaded report (ours
 * to print, not to trust) cannot move the cursor, clear the screen or retitle the window. Tabs and
 * newlines are kept. Takes and returns a string. Used by the CLIs for every line they print;
 * `--json` output is already escaped by JSON.stringify.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (character) => {
    if (character === "\t" || character === "\n") return character;
    const code = character.codePointAt(0)!;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
