import { headers } from "next/headers";
import { getTranslations } from "next-intl/server";
import { ProblemPage } from "@/app/_components/problem-page";
import { REQUEST_PATH_HEADER } from "@/lib/http/request-path";

// 404 inside the dashboard's frame: an unknown page (the catch-all [...missing] calls notFound()).
export default async function NotFound() {
  const [t, path] = await Promise.all([getTranslations("errors"), headers().then((list) => list.get(REQUEST_PATH_HEADER))]);
  return (
    <ProblemPage code="404" title={t("notFoundTitle")} backText={t("toOrders")}>
      <p>{t("notFoundText", { path: (path ?? "").split("?")[0] })}</p>
    </ProblemPage>
  );
}
