/**
 * Cursors of the JSON list APIs (`cursor` in, `nextCursor` out): the keyset position of the last row
 * given, as base64url of a JSON array of strings. Opaque to callers; decoded strictly.
 */
export function encodeCursor(parts: readonly string[]): string {
  return Buffer.from(JSON.stringify(parts)).toString("base64url");
}

/**
 * The parts of a cursor {@link encodeCursor} wrote with `size` parts, each at most 255 characters;
 * undefined for anything else (a typo, another list's cursor, a hand-made one).
 */
export function decodeCursor(text: string, size: number): string[] | undefined {
  if (text.length > 1_000 || !/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== size || !value.every((part) => typeof part === "string" && part.length <= 255)) return undefined;
    return value as string[];
  } catch {
    return undefined;
  }
}

/** A time part of a cursor: the ISO 8601 text {@link encodeCursor} was given, else undefined. */
export function cursorTime(text: string): Date | undefined {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) || date.toISOString() !== text ? undefined : date;
}
