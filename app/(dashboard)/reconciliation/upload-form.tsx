"use client";
// The upload posts the file itself to POST /api/reconciliations (streamed to disk there, under
// RECONCILIATION_UPLOAD_MAX_BYTES), never through a server action and its 10 MB body limit; on 202 the
// browser goes to the run's page, which shows its progress.
import { useRouter } from "next/navigation";
import { useLocale, useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import { FilterInput, FilterSelect } from "@/app/_components/filter-fields";
import { useReasons } from "@/app/_components/use-reasons";
import { readReason } from "@/lib/reasons/reason-codes";
import type { ScopeChoice } from "@/lib/reconciliation/run-scope";
import { useOrganizationBase } from "@/app/_components/organization-link";
import { ORGANIZATION_HEADER, splitOrganizationPath } from "@/lib/http/organization-path";

/** Bytes in binary units, as the settings' documentation writes the limit (209715200 -> "200 MB"), by Intl in `locale` ("1,5 MB" in es-AR). */
function formatLimit(bytes: number, locale: string): string {
  const [value, unit] = bytes >= 1024 * 1024 ? [bytes / (1024 * 1024), "megabyte"] : bytes >= 1024 ? [bytes / 1024, "kilobyte"] : [bytes, "byte"];
  return new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay: "short", maximumFractionDigits: 1 }).format(value);
}

/**
 * Settlement upload: the file, its format, its scope chosen among the configured endpoints' (or left
 * to the report: Stripe's and the lab's name their provider) and period; answers shown in place.
 */
export function UploadForm({ maxBytes, scopes }: { maxBytes: number; scopes: ScopeChoice[] }) {
  const t = useTranslations("reconciliation");
  const locale = useLocale();
  const router = useRouter();
  const base = useOrganizationBase();
  const organizationSlug = splitOrganizationPath(`${base}/`).slug;
  const reasons = useReasons();
  const [pending, setPending] = useState(false);
  const [message, setMessage] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const file = form.get("file");
    // An empty file is sent too: the server answers why it is refused ("empty file"), in the reader's language.
    if (!(file instanceof File)) return;
    if (file.size > maxBytes) {
      setMessage(t("tooLarge", { limit: formatLimit(maxBytes, locale) }));
      return;
    }
    const params = new URLSearchParams();
    for (const name of ["format", "from", "to", "source"]) {
      const value = String(form.get(name) ?? "").trim();
      if (value) params.set(name, value);
    }
    // The API takes the scope as its three parts, as the CLI's flags do.
    const scope = scopes.find((choice) => choice.key === form.get("scope"));
    if (scope) {
      params.set("provider", scope.provider);
      params.set("account", scope.account);
      params.set("mode", scope.livemode ? "live" : "test");
    }
    if (!params.has("source")) params.set("source", file.name.slice(0, 100));
    setPending(true);
    setMessage(null);
    try {
      // The upload is the organization's of this page (the API's Acredita-Org header; its body streams
      // past the proxy at /api/reconciliations, so the address stays unprefixed).
      const response = await fetch(`/api/reconciliations?${params}`, { method: "POST", body: file, headers: { "content-type": "text/csv", ...(organizationSlug ? { [ORGANIZATION_HEADER]: organizationSlug } : {}) } });
      const answer = (await response.json().catch(() => ({}))) as { runId?: string; error?: string; reason?: unknown; limitBytes?: number; limit?: number; scope?: string };
      if (response.status === 202 && answer.runId) {
        router.push(`${base}/reconciliation/${answer.runId}`);
        return;
      }
      if (response.status === 413) setMessage(t("tooLarge", { limit: formatLimit(answer.limitBytes ?? maxBytes, locale) }));
      else if (response.status === 429 && answer.limit) setMessage(t(answer.scope === "all" ? "tooManyRunsAll" : "tooManyRuns", { limit: answer.limit }));
      else if (response.status === 400 && answer.error) setMessage(t("refused", { message: reasons.render(readReason(answer.reason), answer.error) }));
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
          {t("maxSize", { limit: formatLimit(maxBytes, locale) })}
        </small>
      </div>
      <FilterSelect
        id="settlement-format"
        name="format"
        label={t("format")}
        anyLabel={t("formatAuto")}
        value={undefined}
        options={[
          { value: "stripe-balance", label: t("formatStripeBalance") },
          { value: "stripe-payout", label: t("formatStripePayout") },
          { value: "neutral", label: t("formatNeutral") },
          { value: "lab", label: t("formatLab") },
        ]}
      />
      <FilterSelect
        id="settlement-scope"
        name="scope"
        label={t("scopeChoice")}
        anyLabel={t("scopeAuto")}
        value={undefined}
        options={scopes.map((choice) => ({
          value: choice.key,
          label: t("scopeOption", { provider: choice.provider, account: choice.account, mode: choice.livemode ? t("modeLive") : t("modeTest"), endpoints: choice.endpoints.join(", ") }),
        }))}
      />
      <FilterInput id="settlement-from" name="from" type="date" label={t("from")} value={undefined} />
      <FilterInput id="settlement-to" name="to" type="date" label={t("to")} value={undefined} />
      <FilterInput id="settlement-source" name="source" label={t("source")} value={undefined} maxLength={100} />
      <button type="submit" disabled={pending}>
        {pending ? t("running") : t("run")}
      </button>
      <div role="status" aria-live="polite" data-testid="upload-result" style={{ flexBasis: "100%" }}>
        {message ? <div className="notice bad">{message}</div> : null}
      </div>
    </form>
  );
}
