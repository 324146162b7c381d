import Link from "next/link";
import { getTranslations } from "next-intl/server";

export default async function NotFound() {
  const t = await getTranslations("common");
  return (
    <div className="empty">
      <p>{t("notFound")}</p>
      <Link href="/orders">{t("back")}</Link>
    </div>
  );
}
