"use client";
import { useTranslations } from "next-intl";
import { startTransition, useActionState, useEffect, useRef, type FormEvent } from "react";
import { isRole, ROLES } from "@/lib/auth/roles";
import { createApiKeyAction, createUserAction, revokeApiKeyAction, revokeSessionsAction, setActiveAction, setRoleAction } from "./actions";

/** The create-user form: a refused password keeps what was typed (a form action would clear every field); a created user clears it. */
export function CreateUserForm() {
  const t = useTranslations("users");
  const roles = useTranslations("roles");
  const [state, action, pending] = useActionState(createUserAction, null);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state?.ok) form.current?.reset();
  }, [state]);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    startTransition(() => action(data));
  };
  return (
    <form ref={form} onSubmit={submit} className="filters">
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
        <input id="u-password" name="password" type="password" required minLength={12} maxLength={128} autoComplete="new-password" />
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

/** One button posting `action` for a row (deactivate, reactivate, end sessions, revoke a key). */
function RowButton({ action: serverAction, fields, label, testId }: { action: typeof setActiveAction; fields: Record<string, string>; label: string; testId?: string }) {
  const [state, action, pending] = useActionState(serverAction, null);
  return (
    <form action={action} className="row-actions">
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button type="submit" className="secondary" disabled={pending} aria-label={label} data-testid={testId}>
        {label.split(":")[0]}
      </button>
      <span role="status" aria-live="polite">
        {state ? <span className={state.ok ? "muted" : "diff-bad"}>{state.messages.join(" ")}</span> : null}
      </span>
    </form>
  );
}

/** Deactivate or reactivate a user (the admin plugin's ban and unban). */
export function ActiveForm({ userId, email, deactivated }: { userId: string; email: string; deactivated: boolean }) {
  const t = useTranslations("users");
  return <RowButton action={setActiveAction} fields={{ userId, active: deactivated ? "true" : "false" }} label={`${deactivated ? t("reactivate") : t("deactivate")}: ${email}`} />;
}

/** End every session of a user. */
export function RevokeSessionsForm({ userId, email }: { userId: string; email: string }) {
  const t = useTranslations("users");
  return <RowButton action={revokeSessionsAction} fields={{ userId }} label={`${t("revokeSessions")}: ${email}`} />;
}

/** Revoke one API key. */
export function RevokeKeyForm({ keyId, name }: { keyId: string; name: string }) {
  const t = useTranslations("users");
  return <RowButton action={revokeApiKeyAction} fields={{ keyId }} label={`${t("keyRevoke")}: ${name}`} />;
}

/** Create an API key for an active user; the key is shown once, in the answer. */
export function CreateApiKeyForm({ owners, defaultDays }: { owners: { id: string; email: string; role: string }[]; defaultDays: number }) {
  const t = useTranslations("users");
  const roles = useTranslations("roles");
  const [state, action, pending] = useActionState(createApiKeyAction, null);
  return (
    <form action={action} className="filters">
      <div className="field">
        <label htmlFor="k-owner">{t("keyOwner")}</label>
        <select id="k-owner" name="userId">
          {owners.map((owner) => (
            <option key={owner.id} value={owner.id}>
              {owner.email} ({isRole(owner.role) ? roles(owner.role) : owner.role})
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="k-name">{t("keyName")}</label>
        <input id="k-name" name="name" required maxLength={100} autoComplete="off" />
      </div>
      <div className="field">
        <label htmlFor="k-days">{t("keyDays")}</label>
        <input id="k-days" name="days" type="number" min={1} max={365} defaultValue={defaultDays} required />
      </div>
      <button type="submit" disabled={pending}>
        {t("createKey")}
      </button>
      <div role="status" aria-live="polite" style={{ flexBasis: "100%" }}>
        {state ? <p className={`notice ${state.tone}`}>{state.messages.join(" ")}</p> : null}
        {state?.key ? (
          <p>
            <code className="mono" data-testid="new-api-key">
              {state.key}
            </code>
          </p>
        ) : null}
      </div>
    </form>
  );
}
