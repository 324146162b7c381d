import { getTranslations } from "next-intl/server";

export default async function Loading() {
  const t = await getTranslations("common");
  return (
    <div role="status" aria-live="polite">
      <p className="muted">{t("loading")}</p>
      <div className="skeleton" />
    </div>
  );
}
