import { headers } from "next/headers";
import { getTranslations } from "next-intl/server";
import { ProblemPage } from "@/app/_components/problem-page";
import { REQUEST_PATH_HEADER } from "@/lib/http/request-path";

// 404 outside the dashboard's frame (a notFound() above it); unknown dashboard paths get the framed
// app/(dashboard)/not-found.tsx through the catch-all page.
export default async function RootNotFound() {
  const [t, path] = await Promise.all([getTranslations("errors"), headers().then((list) => list.get(REQUEST_PATH_HEADER))]);
  return (
    <main id="main">
      <ProblemPage code="404" title={t("notFoundTitle")} backText={t("toOrders")}>
        <p>{t("notFoundText", { path: (path ?? "").split("?")[0] })}</p>
      </ProblemPage>
    </main>
  );
}
