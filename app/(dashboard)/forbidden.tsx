import { headers } from "next/headers";
import { getTranslations } from "next-intl/server";
import { ProblemPage } from "@/app/_components/problem-page";
import { currentActor } from "@/lib/auth/session";
import { REQUEST_PATH_HEADER } from "@/lib/http/request-path";

// 403 inside the dashboard's frame: a signed-in user whose role lacks the page's permission (the page
// calls forbidden() from next/navigation; experimental.authInterrupts in next.config.mjs).
export default async function Forbidden() {
  const [t, common, roles, path, actor] = await Promise.all([getTranslations("forbiddenPage"), getTranslations("common"), getTranslations("roles"), headers().then((list) => list.get(REQUEST_PATH_HEADER)), currentActor()]);
  return (
    <ProblemPage code="403" title={t("title")} backText={(await getTranslations("errors"))("toOrders")}>
      <p data-testid="not-allowed">{common("notAllowed")}</p>
      {actor ? <p>{t("text", { role: roles(actor.role), path: (path ?? "").split("?")[0] })}</p> : null}
    </ProblemPage>
  );
}
