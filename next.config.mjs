import createNextIntlPlugin from "next-intl/plugin";

// next-intl reads the request's locale and messages from lib/i18n/request.ts (no locale in the URL).
const withNextIntl = createNextIntlPlugin("./lib/i18n/request.ts");

/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  experimental: {
    // Settlement CSV uploads go through a server action; 1 MB is Next's default, too small for a month.
    serverActions: { bodySizeLimit: "10mb" },
  },
};

export default withNextIntl(nextConfig);
