"use client";
// The upload posts the file itself to POST /api/reconciliations (streamed to disk there, under
// RECONCILIATION_UPLOAD_MAX_BYTES), never through a server action and its 10 MB body limit; on 202 the
// browser goes to the run's page, which shows its progress.
import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";

/** Bytes as the limit is written in the settings' documentation: 209715200 -> "200 MB". */
function formatLimit(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KB`;
  return `${bytes} B`;
}

/** Settlement upload: the file, its format and scope (optional: detected or the endpoint's) and period; answers shown in place. */
export function UploadForm({ maxBytes }: { maxBytes: number }) {
  const t = useTranslations("reconciliation");
  const router = useRouter();
  const [pending, setPending] = useState(false);
  const [message, setMessage] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const file = form.get("file");
    if (!(file instanceof File) || file.size === 0) return;
    if (file.size > maxBytes) {
      setMessage(t("tooLarge", { limit: formatLimit(maxBytes) }));
      return;
    }
    const params = new URLSearchParams();
    for (const name of ["format", "provider", "account", "mode", "from", "to", "source"]) {
      const value = String(form.get(name) ?? "").trim();
      if (value) params.set(name, value);
    }
    if (!params.has("source")) params.set("source", file.name.slice(0, 100));
    setPending(true);
    setMessage(null);
    try {
      const response = await fetch(`/api/reconciliations?${params}`, { method: "POST", body: file, headers: { "content-type": "text/csv" } });
      const answer = (await response.json().catch(() => ({}))) as { runId?: string; error?: string; limitBytes?: number };
      if (response.status === 202 && answer.runId) {
        router.push(`/reconciliation/${answer.runId}`);
        return;
      }
      if (response.status === 413) setMessage(t("tooLarge", { limit: formatLimit(answer.limitBytes ?? maxBytes) }));
      else if (response.status === 400 && answer.error) setMessage(t("refused", { message: answer.error }));
      else setMessage(t("uploadFailed", { status: response.status }));
    } catch {
      setMessage(t("uploadFailed", { status: 0 }));
    } finally {
      setPending(false);
    }
  }

  return (
    <form onSubmit={submit} className="filters" aria-labelledby="upload-h">
      <div className="field">
        <label htmlFor="settlement-file">{t("file")}</label>
        <input id="settlement-file" name="file" type="file" accept=".csv,text/csv" required aria-describedby="settlement-max" />
        <small id="settlement-max" className="muted">
          {t("maxSize", { limit: formatLimit(maxBytes) })}
        </small>
      </div>
      <div className="field">
        <label htmlFor="settlement-format">{t("format")}</label>
        <select id="settlement-format" name="format" defaultValue="">
          <option value="">{t("formatAuto")}</option>
          <option value="stripe-balance">{t("formatStripeBalance")}</option>
          <option value="stripe-payout">{t("formatStripePayout")}</option>
          <option value="neutral">{t("formatNeutral")}</option>
          <option value="lab">{t("formatLab")}</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="settlement-provider">{t("provider")}</label>
        <input id="settlement-provider" name="provider" maxLength={40} />
      </div>
      <div className="field">
        <label htmlFor="settlement-account">{t("account")}</label>
        <input id="settlement-account" name="account" maxLength={200} />
      </div>
      <div className="field">
        <label htmlFor="settlement-mode">{t("mode")}</label>
        <select id="settlement-mode" name="mode" defaultValue="">
          <option value="">{t("modeAuto")}</option>
          <option value="live">{t("modeLive")}</option>
          <option value="test">{t("modeTest")}</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="settlement-from">{t("from")}</label>
        <input id="settlement-from" name="from" type="date" />
      </div>
      <div className="field">
        <label htmlFor="settlement-to">{t("to")}</label>
        <input id="settlement-to" name="to" type="date" />
      </div>
      <div className="field">
        <label htmlFor="settlement-source">{t("source")}</label>
        <input id="settlement-source" name="source" maxLength={100} />
      </div>
      <button type="submit" disabled={pending}>
        {pending ? t("running") : t("run")}
      </button>
      <div role="status" aria-live="polite" data-testid="upload-result" style={{ flexBasis: "100%" }}>
        {message ? <div className="notice bad">{message}</div> : null}
      </div>
    </form>
  );
}
