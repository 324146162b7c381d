"use client";
import { useTranslations } from "next-intl";
import { useActionState } from "react";
import { uploadSettlementAction } from "./actions";

/** Settlement upload: the file and an optional label; bad rows come back with their line numbers. */
export function UploadForm() {
  const t = useTranslations("reconciliation");
  const [state, action, pending] = useActionState(uploadSettlementAction, null);
  return (
    <form action={action} className="filters" aria-labelledby="upload-h">
      <div className="field">
        <label htmlFor="settlement-file">{t("file")}</label>
        <input id="settlement-file" name="file" type="file" accept=".csv,text/csv" required />
      </div>
      <div className="field">
        <label htmlFor="settlement-source">{t("source")}</label>
        <input id="settlement-source" name="source" maxLength={100} />
      </div>
      <button type="submit" disabled={pending}>
        {pending ? t("running") : t("run")}
      </button>
      <div role="status" aria-live="polite" data-testid="upload-result" style={{ flexBasis: "100%" }}>
        {state && !state.ok ? (
          <div className={`notice ${state.tone}`}>
            {state.messages.map((message, index) => (
              <p key={index}>{message}</p>
            ))}
          </div>
        ) : null}
      </div>
    </form>
  );
}
