"use client";
import { useTranslations } from "next-intl";
import { useActionState } from "react";
import { ROLES } from "@/lib/auth/roles";
import { createUserAction, setRoleAction } from "./actions";

export function CreateUserForm() {
  const t = useTranslations("users");
  const roles = useTranslations("roles");
  const [state, action, pending] = useActionState(createUserAction, null);
  return (
    <form action={action} className="filters">
      <div className="field">
        <label htmlFor="u-email">{t("email")}</label>
        <input id="u-email" name="email" type="email" required autoComplete="off" />
      </div>
      <div className="field">
        <label htmlFor="u-name">{t("name")}</label>
        <input id="u-name" name="name" required maxLength={100} />
      </div>
      <div className="field">
        <label htmlFor="u-role">{t("role")}</label>
        <select id="u-role" name="role" defaultValue="merchant">
          {ROLES.map((role) => (
            <option key={role} value={role}>
              {roles(role)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="u-password">{t("password")}</label>
        <input id="u-password" name="password" type="password" required minLength={10} maxLength={128} autoComplete="new-password" />
      </div>
      <button type="submit" disabled={pending}>
        {t("create")}
      </button>
      <div role="status" aria-live="polite" style={{ flexBasis: "100%" }}>
        {state ? <p className={`notice ${state.tone}`}>{state.messages.join(" ")}</p> : null}
      </div>
    </form>
  );
}

export function RoleForm({ userId, role, email }: { userId: string; role: string; email: string }) {
  const t = useTranslations("users");
  const roles = useTranslations("roles");
  const [state, action, pending] = useActionState(setRoleAction, null);
  return (
    <form action={action} className="row-actions">
      <input type="hidden" name="userId" value={userId} />
      <label className="sr-only" htmlFor={`role-${userId}`}>
        {t("changeRole")}: {email}
      </label>
      {/* keyed by role: React resets a form after its action; the new role must be the reset value */}
      <select key={role} id={`role-${userId}`} name="role" defaultValue={role}>
        {ROLES.map((value) => (
          <option key={value} value={value}>
            {roles(value)}
          </option>
        ))}
      </select>
      <button type="submit" className="secondary" disabled={pending}>
        {t("save")}
      </button>
      <span role="status" aria-live="polite">
        {state ? <span className={state.ok ? "muted" : "diff-bad"}>{state.messages.join(" ")}</span> : null}
      </span>
    </form>
  );
}
