import { getTranslations } from "next-intl/server";
import { ProblemPage } from "@/app/_components/problem-page";

// 404 for /events/<id> when no stored event has that id.
export default async function EventNotFound() {
  const [errors, t] = await Promise.all([getTranslations("errors"), getTranslations("event")]);
  return (
    <ProblemPage code="404" title={t("notFound")} backText={errors("toOrders")}>
      <p>{t("lookupHelp")}</p>
    </ProblemPage>
  );
}
