import { getTranslations } from "next-intl/server";

/**
 * The skeleton shown while a dashboard list page loads (each list segment's loading.tsx). Not used
 * above pages that can answer 404 (orders/[id], reconciliation/[runId]): a loading boundary starts the
 * stream with 200 before the page can call notFound().
 */
export async function PageLoading() {
  const t = await getTranslations("common");
  return (
    <div role="status" aria-live="polite">
      <p className="muted">{t("loading")}</p>
      <div className="skeleton" />
    </div>
  );
}
