import createNextIntlPlugin from "next-intl/plugin";
import { securityHeaders } from "./lib/security/security-headers.mjs";

// next-intl reads the request's locale and messages from lib/i18n/request.ts (no locale in the URL).
const withNextIntl = createNextIntlPlugin("./lib/i18n/request.ts");

/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  // CSP, framing, referrer and friends on every response (lib/security/security-headers.mjs).
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders({ dev: process.env.NODE_ENV !== "production" }) }];
  },
  experimental: {
    // What the largest form sends: the bulk retry's 100 dead-letter ids (64 characters each) or a
    // 1,000-character note, a few KB. Next.js decodes an action's arguments before the action checks
    // the role, so this bounds what any signed-in user can make it decode (Next's default is 1 MB).
    // Anonymous posts never get this far: proxy.ts refuses them without a signed session cookie.
    serverActions: { bodySizeLimit: "128kb" },
    // The proxy holds a copy of every body it runs for (twice, in Next.js's cloneable body): nothing
    // that passes through it needs more than this (actions above, JSON API bodies, sign-in). Webhook
    // deliveries and settlement uploads are outside the proxy's matcher and stream under their own caps.
    proxyClientMaxBodySize: "1mb",
    // forbidden() from next/navigation: a page a role may not open answers 403 with app/(dashboard)/forbidden.tsx.
    authInterrupts: true,
  },
};

export default withNextIntl(nextConfig);
