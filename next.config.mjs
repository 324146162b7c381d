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
    // Settlement CSV uploads go through a server action; 1 MB is Next's default, too small for a month.
    serverActions: { bodySizeLimit: "10mb" },
    // forbidden() from next/navigation: a page a role may not open answers 403 with app/(dashboard)/forbidden.tsx.
    authInterrupts: true,
  },
};

export default withNextIntl(nextConfig);
