"use client";
// The replay filter: "Preview replay" stores a preview and opens it; "Count dead letters" shows how many
// open dead letters the same filter names, and only then offers to retry exactly that many. Submitted
// by hand (not as a form action) so the fields keep what was typed between the count and the retry.
import { useTranslations } from "next-intl";
import { startTransition, useActionState, useRef } from "react";
import type { FilterOption } from "@/app/_components/filter-fields";
import { countDeadLettersAction, previewReplayAction, retryByFilterAction, type CountResult } from "./actions";

/** One answer of an action, shown under the form. */
function Answer({ state, testId }: { state: CountResult | null; testId: string }) {
  if (!state || state.messages.length === 0) return null;
  return (
    <div className="replay-answer" data-testid={testId}>
      {state.messages.map((message, index) => (
        <p key={index} className={`notice ${state.tone}`}>
          {message}
        </p>
      ))}
    </div>
  );
}

/** The filter form; `initial` fills it (a link from a dead letter, or a replay's "preview again"). */
export function ReplayForm({ endpoints, statuses, reasonCodes, initial }: { endpoints: string[]; statuses: FilterOption[]; reasonCodes: string[]; initial: Record<string, string> }) {
  const t = useTranslations("replays");
  const common = useTranslations("common");
  const form = useRef<HTMLFormElement>(null);
  const [previewState, preview, previewing] = useActionState(previewReplayAction, null);
  const [countState, count, counting] = useActionState(countDeadLettersAction, null);
  const [retryState, retry, retrying] = useActionState(retryByFilterAction, null);
  const busy = previewing || counting || retrying;
  const run = (action: (data: FormData) => void, extra: Record<string, string> = {}) => {
    if (!form.current || !form.current.reportValidity()) return;
    const data = new FormData(form.current);
    for (const [name, value] of Object.entries(extra)) data.set(name, value);
    startTransition(() => action(data));
  };
  const counted = countState?.count;
  // Offered once per count: after a retry the count is stale, and counting again offers it again.
  const offerRetry = counted !== undefined && counted > 0 && !(retryState && countState && retryState.at > countState.at);
  return (
    <form
      ref={form}
      className="filters replay-form"
      aria-labelledby="replay-filter-h"
      onSubmit={(event) => {
        event.preventDefault();
        run(preview);
      }}
    >
      <div className="field wide">
        <label htmlFor="rp-events">{t("eventIds")}</label>
        <textarea id="rp-events" name="eventIds" rows={2} defaultValue={initial.eventIds ?? ""} placeholder="evt_… evt_…" />
      </div>
      <div className="field">
        <label htmlFor="rp-endpoint">{t("endpoint")}</label>
        <select id="rp-endpoint" name="endpoint" defaultValue={initial.endpoint ?? ""}>
          <option value="">{common("any")}</option>
          {endpoints.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="rp-type">{t("type")}</label>
        <input id="rp-type" name="type" maxLength={100} defaultValue={initial.type ?? ""} />
      </div>
      <div className="field">
        <label htmlFor="rp-status">{t("status")}</label>
        <select id="rp-status" name="status" defaultValue={initial.status ?? ""}>
          <option value="">{common("any")}</option>
          {statuses.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="rp-reason">{t("reason")}</label>
        <input id="rp-reason" name="reason" list="rp-reasons" maxLength={64} defaultValue={initial.reason ?? ""} />
        <datalist id="rp-reasons">
          {reasonCodes.map((code) => (
            <option key={code} value={code} />
          ))}
        </datalist>
      </div>
      <div className="field">
        <label htmlFor="rp-from">{t("from")}</label>
        <input id="rp-from" name="from" type="datetime-local" defaultValue={initial.from ?? ""} />
      </div>
      <div className="field">
        <label htmlFor="rp-to">{t("to")}</label>
        <input id="rp-to" name="to" type="datetime-local" defaultValue={initial.to ?? ""} />
      </div>
      <div className="field">
        <label htmlFor="rp-order">{t("orderId")}</label>
        <input id="rp-order" name="orderId" maxLength={255} defaultValue={initial.orderId ?? ""} />
      </div>
      <div className="replay-buttons">
        <button type="submit" disabled={busy} data-testid="preview-replay">
          {previewing ? t("previewing") : t("preview")}
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={() => run(count)} data-testid="count-dead-letters">
          {t("countDeadLetters")}
        </button>
        {offerRetry ? (
          <button type="button" disabled={busy} onClick={() => run(retry, { expected: String(counted) })} data-testid="retry-by-filter">
            {t("retryCounted", { count: counted })}
          </button>
        ) : null}
      </div>
      <div role="status" aria-live="polite" className="replay-answers">
        <Answer state={previewState} testId="preview-result" />
        <Answer state={countState} testId="count-result" />
        {countState?.deadLetters && countState.deadLetters.length > 0 ? (
          <ul className="compact-list" data-testid="counted-dead-letters">
            {countState.deadLetters.map((letter) => (
              <li key={letter.id} className="mono">
                {letter.endpoint}:{letter.eventId} · {letter.type} · {letter.orderId ?? "—"}
              </li>
            ))}
          </ul>
        ) : null}
        <Answer state={retryState} testId="retry-result" />
      </div>
    </form>
  );
}
