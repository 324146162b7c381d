import { labProvider } from "@/lib/webhooks/providers/lab";
import { standardWebhooksProvider } from "@/lib/webhooks/providers/standard-webhooks";
import { stripeProvider } from "@/lib/webhooks/providers/stripe";
import { yolfiProvider } from "@/lib/webhooks/providers/yolfi";
import type { ProviderModule, ProviderName } from "@/lib/webhooks/types";

/** Provider modules by name. The core never imports a provider directly. */
export const providers: Record<ProviderName, ProviderModule> = {
  lab: labProvider,
  stripe: stripeProvider,
  yolfi: yolfiProvider,
  "standard-webhooks": standardWebhooksProvider as ProviderModule,
};
