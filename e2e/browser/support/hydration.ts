// A control drawn by the server does nothing until React has hydrated it (a sort header, a page-size
// select): a click that lands before that is lost, more often when the machine is busy (two workers).
import { expect, type Locator } from "@playwright/test";

/**
 * Waits (up to 10 s) until React has hydrated the element of `locator`: React keeps an element's props on
 * the element itself (a `__reactProps$…` key) once hydration has reached it.
 */
export async function untilHydrated(locator: Locator): Promise<void> {
  await expect.poll(() => locator.evaluate((element) => Object.keys(element).some((key) => key.startsWith("__reactProps$"))), { timeout: 10_000 }).toBe(true);
}
