// Watching a page for Content Security Policy violations (security.spec.ts, and the es-AR walk of every
// dashboard page in walk-es-ar.spec.ts, which checks them on its pages instead of loading them twice).
import type { Page } from "@playwright/test";

/** Records every CSP violation the page reports (the browser fires securitypolicyviolation); returns a reader of those seen so far. */
export async function watchCsp(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  const consoleErrors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy/i.test(message.text())) consoleErrors.push(message.text());
  });
  return async () => [...consoleErrors, ...(await page.evaluate(() => (window as unknown as { cspViolations?: string[] }).cspViolations ?? []))];
}
