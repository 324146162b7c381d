import { labProvider } from "@/lib/webhooks/providers/lab";
import type { ProviderModule, ProviderName } from "@/lib/webhooks/types";

/** Provider modules by name. The core never imports a provider directly. */
export const providers: Partial<Record<ProviderName, ProviderModule>> = {
  lab: labProvider,
};
