import { open } from "node:fs/promises";
import { parse } from "csv-parse/sync";
import { badLine, type SettlementCsvError } from "@/lib/reconciliation/report-fields";
import { detectFormat, type SettlementFormat } from "@/lib/reconciliation/settlement-entries";

/** Bytes read from the start of a report to tell its format (a header row is far shorter). */
export const HEAD_BYTES = 64 * 1024;

/**
 * Tells a report's format from its first bytes, before anything is stored or queued: refuses an empty
 * file, a binary one (a NUL byte in the first {@link HEAD_BYTES}, as in a spreadsheet, archive or
 * image), and a header that fits no format or lacks a required column (named), then returns the
 * format (`forced`, when given, is checked against the header). Throws {@link SettlementCsvError} at
 * line 1.
 */
export function formatOfHead(head: Buffer, forced?: SettlementFormat): SettlementFormat {
  const text = head.toString("utf8").replace(/^\uFEFF/, "");
  if (text.trim() === "") badLine(1, "report_empty", {});
  if (head.includes(0)) badLine(1, "report_binary", {});
  const end = text.search(/\r?\n/);
  if (end < 0 && head.length >= HEAD_BYTES) badLine(1, "report_no_header", { bytes: HEAD_BYTES });
  const firstLine = end < 0 ? text : text.slice(0, end);
  let names: string[];
  try {
    names = (parse(firstLine, { relax_quotes: true }) as string[][])[0] ?? [];
  } catch {
    badLine(1, "report_header_not_csv", {});
  }
  return detectFormat(
    names.map((name) => name.trim().toLowerCase()),
    forced,
  );
}

/** Reads the first {@link HEAD_BYTES} of `filePath` and returns its format ({@link formatOfHead}). */
export async function formatOfFile(filePath: string, forced?: SettlementFormat): Promise<SettlementFormat> {
  const handle = await open(filePath, "r");
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return formatOfHead(buffer.subarray(0, bytesRead), forced);
  } finally {
    await handle.close();
  }
}
