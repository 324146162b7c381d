import Link from "@/app/_components/organization-link";
import { getTranslations } from "next-intl/server";
import { toQueryString } from "@/lib/lists/paging";

/**
 * Page links for a server-rendered list: keeps every other search param (filters) and changes `page`.
 * Plain links, so paging works without JavaScript and each page has a shareable URL.
 */
export async function Pager({ path, params, page, totalPages, count }: { path: string; params: Record<string, string | undefined>; page: number; totalPages: number; count: number }) {
  const t = await getTranslations("common");
  const href = (target: number) => `${path}${toQueryString({ ...params, page: target === 1 ? undefined : target })}`;
  const link = (target: number, text: string, disabled: boolean) => (
    <Link href={disabled ? "#" : href(target)} className="button secondary" aria-disabled={disabled ? "true" : undefined} tabIndex={disabled ? -1 : undefined}>
      {text}
    </Link>
  );
  return (
    <nav className="pager" aria-label={t("pagination")}>
      <span>{t("results", { count })}</span>
      <span>{t("page", { page, totalPages })}</span>
      <span className="links">
        {link(1, t("first"), page <= 1)}
        {link(page - 1, t("previous"), page <= 1)}
        {link(page + 1, t("next"), page >= totalPages)}
        {link(totalPages, t("last"), page >= totalPages)}
      </span>
    </nav>
  );
}
