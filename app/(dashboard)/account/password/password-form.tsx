"use client";
import { useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import { useReasons } from "@/app/_components/use-reasons";
import { readReason } from "@/lib/reasons/reason-codes";

/**
 * Posts to better-auth's /api/auth/change-password. The server checks the new password's strength
 * (400 WEAK_PASSWORD with the reason, shown in the reader's language) and ends every other session of the user.
 */
export function PasswordForm() {
  const t = useTranslations("password");
  const [message, setMessage] = useState<{ tone: "ok" | "bad"; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const reasons = useReasons();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    setBusy(true);
    setMessage(null);
    try {
      const response = await fetch("/api/auth/change-password", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ currentPassword: form.get("current"), newPassword: form.get("new") }),
      });
      const body = (await response.json().catch(() => null)) as { code?: string; message?: string; reason?: unknown } | null;
      if (response.ok) {
        setMessage({ tone: "ok", text: t("changed") });
        formElement.reset();
      } else if (body?.code === "WEAK_PASSWORD" && body.message) {
        const reason = readReason(body.reason);
        setMessage({ tone: "bad", text: reason ? t("weak", { reason: reasons.render(reason, body.message) }) : body.message });
      }
      else if (body?.code === "INVALID_PASSWORD") setMessage({ tone: "bad", text: t("wrongCurrent") });
      else setMessage({ tone: "bad", text: t("failed") });
    } catch {
      setMessage({ tone: "bad", text: t("failed") });
    }
    setBusy(false);
  }

  return (
    <form onSubmit={submit} onChange={() => setMessage(null)} className="filters">
      <div className="field">
        <label htmlFor="p-current">{t("current")}</label>
        <input id="p-current" name="current" type="password" autoComplete="current-password" required />
      </div>
      <div className="field">
        <label htmlFor="p-new">{t("new")}</label>
        <input id="p-new" name="new" type="password" autoComplete="new-password" minLength={12} maxLength={128} required />
      </div>
      <button type="submit" disabled={busy}>
        {t("submit")}
      </button>
      <div role="status" aria-live="polite" data-testid="password-result" style={{ flexBasis: "100%" }}>
        {message ? <p className={`notice ${message.tone}`}>{message.text}</p> : null}
      </div>
    </form>
  );
}
