"use client";
import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";

/**
 * Email and password form posting to better-auth's /api/auth/sign-in/email (rate-limited there per
 * client IP: 429 with X-Retry-After; per account after repeated failures: 423 with Retry-After; a
 * deactivated user: 403 BANNED_USER). On success the session cookie is set and we go to `next`.
 */
export function SignInForm({ next }: { next: string }) {
  const t = useTranslations("signIn");
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      const response = await fetch("/api/auth/sign-in/email", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: form.get("email"), password: form.get("password"), rememberMe: true }),
      });
      if (response.ok) {
        router.replace(next);
        router.refresh();
        return;
      }
      const code = response.status === 403 ? ((await response.json().catch(() => null)) as { code?: string } | null)?.code : undefined;
      if (response.status === 429) setError(t("tooMany", { seconds: response.headers.get("x-retry-after") ?? "60" }));
      else if (response.status === 423) setError(t("locked", { seconds: response.headers.get("retry-after") ?? "60" }));
      else if (response.status === 401 || response.status === 400) setError(t("wrong"));
      else if (response.status === 403 && code === "BANNED_USER") setError(t("deactivated"));
      else if (response.status === 403) setError(t("origin"));
      else setError(t("failed"));
    } catch {
      setError(t("failed"));
    }
    setBusy(false);
  }

  return (
    <form onSubmit={submit} noValidate={false}>
      <div className="field">
        <label htmlFor="email">{t("email")}</label>
        <input id="email" name="email" type="email" autoComplete="username" required />
      </div>
      <div className="field">
        <label htmlFor="password">{t("password")}</label>
        <input id="password" name="password" type="password" autoComplete="current-password" required />
      </div>
      <div role="alert" aria-live="assertive" data-testid="sign-in-error">
        {error ? <p className="notice bad">{error}</p> : null}
      </div>
      <button type="submit" disabled={busy}>
        {busy ? t("submitting") : t("submit")}
      </button>
    </form>
  );
}
