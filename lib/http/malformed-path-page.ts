import en from "@/lib/i18n/messages/en.json";
import esAR from "@/lib/i18n/messages/es-AR.json";
import type { Locale } from "@/lib/i18n/locales";

/** Escapes text for HTML element content and attribute values. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!);
}

/**
 * The 400 page for a dashboard path with malformed percent-encoding (`/orders/%ZZ`), as a whole HTML
 * document in `locale` (messages `errors.*`), drawn like the dashboard (its top bar and problem box).
 * proxy.ts answers with it directly: Next.js cannot render an App Router page with status 400 (a
 * rewrite's status is dropped, and its router answers an undecodable path with a plain-text 500).
 * Takes the raw path (shown escaped, never decoded); returns the document.
 */
export function malformedPathPage(locale: Locale, path: string): string {
  const t = (locale === "es-AR" ? esAR : en).errors;
  return `<!DOCTYPE html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(t.malformedTitle)} · Acredita</title>
<style>
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1f24; background: #fff; line-height: 1.45; }
.topbar { display: flex; align-items: center; padding: 0.6rem 1.25rem; background: #10243e; color: #fff; }
.brand { color: #fff; font-weight: 700; font-size: 1.1rem; text-decoration: none; }
.problem { max-width: 40rem; margin: 2rem auto; padding: 1.5rem 1.75rem; background: #f4f6f8; border: 1px solid #d8dee4; border-radius: 8px; }
.problem h1 { margin: 0.15rem 0 0.5rem; }
.problem-code { margin: 0; color: #57606a; font-size: 0.95rem; letter-spacing: 0.05em; }
.problem p { overflow-wrap: anywhere; }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.button { display: inline-block; padding: 0.35rem 0.8rem; border: 1px solid #0b4fa8; border-radius: 4px; background: #0b4fa8; color: #fff; text-decoration: none; font-size: 0.9rem; }
</style>
</head>
<body>
<header class="topbar"><a href="/orders" class="brand">Acredita</a></header>
<main id="main">
<section class="problem" aria-labelledby="problem-h" data-testid="problem" data-code="400">
<p class="problem-code mono">400</p>
<h1 id="problem-h">${escapeHtml(t.malformedTitle)}</h1>
<p>${escapeHtml(t.malformedText)}</p>
<p class="mono" data-testid="malformed-path">${escapeHtml(path)}</p>
<p><a href="/orders" class="button">${escapeHtml(t.toOrders)}</a></p>
</section>
</main>
</body>
</html>
`;
}
