import { forbidden, notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { DateTime } from "@/app/_components/money";
import { can, isRole } from "@/lib/auth/roles";
import { requireActor } from "@/lib/auth/session";
import { listApiKeys } from "@/lib/auth/api-keys";
import { listUsers } from "@/lib/auth/users";
import { runMode, settings } from "@/lib/config/settings";
import { db } from "@/lib/db/client";
import { endpointDefinitions, resolveEndpoint } from "@/lib/endpoints/endpoints";
import { ActiveForm, CreateApiKeyForm, CreateUserForm, RevokeKeyForm, RevokeSessionsForm, RoleForm } from "./user-forms";
import { BreakAfter } from "@/app/_components/break-after";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";

export const dynamic = "force-dynamic";

/**
 * Admin: users (role, active or deactivated, live sessions), their API keys (never the key: its first
 * characters, expiry and last use), and the webhook endpoints the server loaded (secrets only as counts).
 */
export default async function UsersPage() {
  const actor = await requireActor("/admin/users");
  const t = await getTranslations("users");
  const roles = await getTranslations("roles");
  if (!can(actor.role, "users.manage")) forbidden();
  // The default organization's people (lib/auth/users.ts assertDefaultOrganization): another organization has no such page.
  if (actor.organizationId !== DEFAULT_ORGANIZATION.id) notFound();
  const client = await db();
  const [users, keys] = await Promise.all([listUsers(client), listApiKeys(client)]);
  const now = new Date();
  const endpoints = endpointDefinitions().map((definition) => ({ definition, secrets: resolveEndpoint(definition.name)?.secrets.length ?? 0 }));
  return (
    <>
      <h1>{t("title")}</h1>
      {/* The action refuses in demo mode too; the page says so before anyone fills the form. */}
      {runMode() === "demo" ? (
        <p className="notice info" data-testid="users-demo-mode">
          {t("demoMode")}
        </p>
      ) : (
        <CreateUserForm />
      )}
      <div className="table-wrap">
        <table data-testid="users-table">
          <thead>
            <tr>
              <th scope="col">{t("email")}</th>
              <th scope="col">{t("name")}</th>
              <th scope="col">{t("role")}</th>
              <th scope="col">{t("changeRole")}</th>
              <th scope="col">{t("status")}</th>
              <th scope="col" className="num">
                {t("sessions")}
              </th>
            </tr>
          </thead>
          <tbody>
            {users.map((user) => (
              <tr key={user.id}>
                <td className="mono">{user.email}</td>
                <td>{user.name}</td>
                <td>
                  <span data-role={user.role}>{isRole(user.role) ? roles(user.role) : user.role}</span> <span className="muted">(<DateTime value={user.createdAt} />)</span>
                </td>
                <td>
                  <RoleForm userId={user.id} role={user.role} email={user.email} />
                </td>
                <td data-testid={`status-${user.email}`}>
                  {user.deactivated ? t("deactivated") : t("active")}
                  {user.id === actor.id ? null : <ActiveForm userId={user.id} email={user.email} deactivated={user.deactivated} />}
                </td>
                <td className="num">
                  {user.activeSessions}
                  {user.activeSessions > 0 ? <RevokeSessionsForm userId={user.id} email={user.email} /> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>{t("apiKeys")}</h2>
      <p className="help">{t("apiKeysHelp")}</p>
      <CreateApiKeyForm owners={users.filter((user) => !user.deactivated).map(({ id, email, role }) => ({ id, email, role }))} defaultDays={settings().API_KEY_DEFAULT_DAYS} />
      <div className="table-wrap">
        <table data-testid="api-keys-table">
          <thead>
            <tr>
              <th scope="col">{t("keyName")}</th>
              <th scope="col">{t("keyStart")}</th>
              <th scope="col">{t("keyOwner")}</th>
              <th scope="col">{t("keyExpires")}</th>
              <th scope="col">{t("keyLastUsed")}</th>
              <th scope="col">{t("keyState")}</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id}>
                <td>{key.name}</td>
                <td className="mono">{key.start}…</td>
                <td className="mono">
                  {key.ownerEmail ?? "API_TOKEN"} ({key.ownerRole})
                </td>
                <td>{key.expiresAt ? <DateTime value={key.expiresAt} /> : "—"}</td>
                <td>{key.lastUsedAt ? <DateTime value={key.lastUsedAt} /> : t("never")}</td>
                <td>
                  {key.revokedAt ? t("keyRevokedState") : key.expiresAt && key.expiresAt <= now ? t("keyExpired") : t("keyActive")}
                  {key.revokedAt ? null : <RevokeKeyForm keyId={key.id} name={key.name} />}
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
                <td className="mono">
                  <BreakAfter text={`/api/webhooks/${definition.name}`} />
                </td>
                <td>{definition.provider}</td>
                <td>{definition.account}</td>
                <td data-mode={definition.mode}>{t("modeName", { mode: definition.mode })}</td>
                <td>{definition.livemode ? "✓" : "—"}</td>
                <td className="num">
                  {secrets > 0 ? secrets : <span className="badge">{t("notConfigured")}</span>} <span className="muted">({definition.secretsEnv})</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
