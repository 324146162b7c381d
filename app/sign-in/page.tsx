import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { LocaleSwitch } from "@/app/_components/locale-switch";
import { currentActor } from "@/lib/auth/session";
import { safeNextPath } from "@/lib/http/next-path";
import { runMode } from "@/lib/config/settings";
import { db } from "@/lib/db/client";
import { DEMO_USERS } from "@/lib/demo/demo-accounts";
import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const next = safeNextPath((await searchParams).next);
  if (await currentActor()) redirect(next);
  const t = await getTranslations("signIn");
  // The demo box shows only in demo mode, and only while the seeded demo accounts exist.
  const showDemo = runMode() === "demo" && (await (await db()).user.count({ where: { email: { in: DEMO_USERS.map((user) => user.email) } } })) > 0;
  return (
    <main className="signin" id="main">
      <h1>{t("title")}</h1>
      <SignInForm next={next} />
      {showDemo ? (
        <section aria-labelledby="demo-users">
          <h2 id="demo-users">{t("demoTitle")}</h2>
          <p className="help">{t("demoNote")}</p>
          <table className="demo-users" data-testid="demo-users">
            <tbody>
              {DEMO_USERS.map((user) => (
                <tr key={user.email}>
                  <td>{user.role}</td>
                  <td className="mono">{user.email}</td>
                  <td className="mono">{user.password}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
      <div>
        <LocaleSwitch />
      </div>
    </main>
  );
}
