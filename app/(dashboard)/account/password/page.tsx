import { getTranslations } from "next-intl/server";
import { requireActor } from "@/lib/auth/session";
import { PasswordForm } from "./password-form";

export const dynamic = "force-dynamic";

/** Any signed-in user changes their own password (better-auth change-password; other sessions end). */
export default async function PasswordPage() {
  await requireActor("/account/password");
  const t = await getTranslations("password");
  return (
    <>
      <h1>{t("title")}</h1>
      <p className="help">{t("help")}</p>
      <PasswordForm />
    </>
  );
}
