import { getTranslations } from "next-intl/server";
import { DateTime } from "@/app/_components/money";
import { can } from "@/lib/auth/roles";
import { requireActor } from "@/lib/auth/session";
import { listUsers } from "@/lib/auth/users";
import { db } from "@/lib/db/client";
import { endpointDefinitions, resolveEndpoint } from "@/lib/endpoints/endpoints";
import { CreateUserForm, RoleForm } from "./user-forms";

export const dynamic = "force-dynamic";

/** Admin: users and their roles; the webhook endpoints the server loaded (secrets only as counts). */
export default async function UsersPage() {
  const actor = await requireActor("/admin/users");
  const [t, common] = await Promise.all([getTranslations("users"), getTranslations("common")]);
  if (!can(actor.role, "users.manage")) return <p className="notice bad">{common("notAllowed")}</p>;
  const users = await listUsers(await db());
  const endpoints = endpointDefinitions().map((definition) => ({ definition, secrets: resolveEndpoint(definition.name)?.secrets.length ?? 0 }));
  return (
    <>
      <h1>{t("title")}</h1>
      <CreateUserForm />
      <div className="table-wrap">
        <table data-testid="users-table">
          <thead>
            <tr>
              <th scope="col">{t("email")}</th>
              <th scope="col">{t("name")}</th>
              <th scope="col">{t("role")}</th>
              <th scope="col">{t("changeRole")}</th>
            </tr>
          </thead>
          <tbody>
            {users.map((user) => (
              <tr key={user.id}>
                <td className="mono">{user.email}</td>
                <td>{user.name}</td>
                <td>
                  {user.role} <span className="muted">(<DateTime value={user.createdAt} />)</span>
                </td>
                <td>
                  <RoleForm userId={user.id} role={user.role} email={user.email} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>{t("endpoints")}</h2>
      <p className="help">{t("endpointsHelp")}</p>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">{t("endpoint")}</th>
              <th scope="col">{t("provider")}</th>
              <th scope="col">{t("account")}</th>
              <th scope="col">{t("mode")}</th>
              <th scope="col">{t("live")}</th>
              <th scope="col" className="num">
                {t("secrets")}
              </th>
            </tr>
          </thead>
          <tbody>
            {endpoints.map(({ definition, secrets }) => (
              <tr key={definition.name}>
                <td className="mono">/api/webhooks/{definition.name}</td>
                <td>{definition.provider}</td>
                <td>{definition.account}</td>
                <td>{definition.mode}</td>
                <td>{definition.livemode ? "✓" : "—"}</td>
                <td className="num">
                  {secrets} <span className="muted">({definition.secretsEnv})</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
