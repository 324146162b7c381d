/**
 * Where to go after signing in: a same-site path from `?next=`, else /orders. Anything that could leave
 * the site (`//evil`, `https://…`, `/\evil`) falls back, so the sign-in page is no open redirect.
 */
export function safeNextPath(value: string | string[] | undefined): string {
  const next = Array.isArray(value) ? value[0] : value;
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\") || /[\r\n]/.test(next)) return "/orders";
  return next;
}
