import { headers } from "next/headers";
import { getTranslations } from "next-intl/server";
import { ProblemPage } from "@/app/_components/problem-page";
import { lastSegment, REQUEST_PATH_HEADER } from "@/lib/http/request-path";

// 404 for /orders/<id> when no order has that id: names the id asked for.
export default async function OrderNotFound() {
  const [t, path] = await Promise.all([getTranslations("errors"), headers().then((list) => list.get(REQUEST_PATH_HEADER))]);
  return (
    <ProblemPage code="404" title={t("orderNotFoundTitle")} backText={t("toOrders")}>
      <p>{t.rich("orderNotFound", { id: lastSegment(path) ?? "", mono: (chunks) => <span className="mono" data-testid="missing-id">{chunks}</span> })}</p>
    </ProblemPage>
  );
}
