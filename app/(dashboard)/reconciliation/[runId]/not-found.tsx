import { headers } from "next/headers";
import { getTranslations } from "next-intl/server";
import { ProblemPage } from "@/app/_components/problem-page";
import { lastSegment, REQUEST_PATH_HEADER } from "@/lib/http/request-path";

// 404 for /reconciliation/<run> when no run has that id: names the id asked for.
export default async function RunNotFound() {
  const [t, path] = await Promise.all([getTranslations("errors"), headers().then((list) => list.get(REQUEST_PATH_HEADER))]);
  return (
    <ProblemPage code="404" title={t("runNotFoundTitle")} backHref="/reconciliation" backText={t("toRuns")}>
      <p>{t.rich("runNotFound", { id: lastSegment(path) ?? "", mono: (chunks) => <span className="mono" data-testid="missing-id">{chunks}</span> })}</p>
    </ProblemPage>
  );
}
