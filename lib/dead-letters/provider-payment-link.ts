/**
 * Where a person settles a payment Acredita cannot: the provider's own dashboard. A review-first dead
 * letter (an amount or currency that does not match its order) is refunded or settled there, then
 * resolved here with a note; the dead-letters page links the payment's page when its address is known.
 */

/** A provider's payment page: its display name and the address of one payment, when the pattern is known. */
interface PaymentPage {
  name: string;
  url(paymentKey: string, livemode: boolean): string | undefined;
}

// Stripe's dashboard opens a PaymentIntent at /payments/<pi_...>, under /test/ for test mode
// (docs.stripe.com/dashboard/basics: "View test data" switches the URL to /test/). Stripe's paymentKey
// is always the PaymentIntent's id (lib/providers/stripe.ts). No other provider's pattern is known yet.
const PAYMENT_PAGES: Record<string, PaymentPage> = {
  stripe: {
    name: "Stripe",
    url: (paymentKey, livemode) => (/^pi_[A-Za-z0-9]+$/.test(paymentKey) ? `https://dashboard.stripe.com/${livemode ? "" : "test/"}payments/${paymentKey}` : undefined),
  },
};

/** A link to one payment in its provider's dashboard. */
export interface ProviderPaymentLink {
  /** The provider's name as people call it ("Stripe"). */
  providerName: string;
  url: string;
}

/**
 * The provider's dashboard page of payment `paymentKey` (live or test), or undefined when the provider
 * has no known URL pattern or the key does not look like one of its payment ids (never a guessed link).
 */
export function providerPaymentLink(provider: string, paymentKey: string | null, livemode: boolean): ProviderPaymentLink | undefined {
  if (!paymentKey || !Object.hasOwn(PAYMENT_PAGES, provider)) return undefined;
  const page = PAYMENT_PAGES[provider];
  const url = page.url(paymentKey, livemode);
  return url ? { providerName: page.name, url } : undefined;
}

/** The payment a stored dead letter's payload (a normalised event, JSON) names, or null when it names none or does not parse. */
export function paymentKeyOfPayload(payload: string): string | null {
  try {
    const event = JSON.parse(payload) as { effect?: { paymentKey?: unknown } };
    const key = event.effect?.paymentKey;
    return typeof key === "string" && key !== "" ? key : null;
  } catch {
    return null;
  }
}
