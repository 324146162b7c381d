// Response headers for every route (next.config.mjs headers()). Plain JavaScript so next.config.mjs can
// import it; the tests import the same function.

/**
 * The Content-Security-Policy: everything from this origin only, no plugins, no framing (clickjacking),
 * forms post only here. Scripts keep 'unsafe-inline' because Next.js streams its hydration data as
 * inline scripts and a static header cannot carry a per-request nonce (a nonce needs a proxy and
 * dynamic rendering: see docs/hardening.md). Styles keep it for React `style` attributes. `dev` adds
 * 'unsafe-eval', which React's development build needs for its call stacks.
 * @param {{ dev?: boolean }} [options]
 * @returns {string}
 */
export function contentSecurityPolicy({ dev = false } = {}) {
  return [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * Every security header Acredita sends, as Next's `headers()` entries' `headers` list. HSTS is not
 * here: the demo serves plain HTTP on 127.0.0.1; the TLS-terminating proxy in front of a deployment
 * sets it.
 * @param {{ dev?: boolean }} [options]
 * @returns {{ key: string, value: string }[]}
 */
export function securityHeaders({ dev = false } = {}) {
  return [
    { key: "Content-Security-Policy", value: contentSecurityPolicy({ dev }) },
    // For browsers that predate CSP's frame-ancestors.
    { key: "X-Frame-Options", value: "DENY" },
    { key: "X-Content-Type-Options", value: "nosniff" },
    // Order ids and filters sit in dashboard URLs: never send them to another site.
    { key: "Referrer-Policy", value: "same-origin" },
    { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=(), usb=()" },
    { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
  ];
}
