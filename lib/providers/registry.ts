import { labProvider } from "@/lib/providers/lab";
import { standardWebhooksProvider } from "@/lib/providers/standard-webhooks";
import { stripeProvider } from "@/lib/providers/stripe";
import { yolfiProvider } from "@/lib/providers/yolfi";
import type { ProviderName } from "@/lib/core/effect";
import type { ProviderModule } from "@/lib/providers/types";

/** Provider modules by name. The core never imports a provider directly. */
export const providers: Record<ProviderName, ProviderModule> = {
  lab: labProvider,
  stripe: stripeProvider,
  yolfi: yolfiProvider as ProviderModule,
  "standard-webhooks": standardWebhooksProvider as ProviderModule,
};
