"use client";
import { useTranslations } from "next-intl";
import { useActionState } from "react";
import { resolveReviewItemAction } from "./actions";

/** Resolve-with-note form for one review item; shows the server's answer beside it. */
export function ResolveForm({ kind, id }: { kind: "extra_charge" | "outbox"; id: string }) {
  const t = useTranslations("review");
  const [state, action, pending] = useActionState(resolveReviewItemAction, null);
  return (
    <form action={action} className="stack">
      <input type="hidden" name="kind" value={kind} />
      <input type="hidden" name="id" value={id} />
      <label htmlFor={`note-${id}`}>{t("note")}</label>
      <textarea id={`note-${id}`} name="note" required minLength={3} maxLength={1000} rows={2} />
      <button type="submit" disabled={pending}>
        {t("resolve")}
      </button>
      <div role="status" aria-live="polite">
        {state ? <p className={`notice ${state.tone}`}>{state.messages.join(" ")}</p> : null}
      </div>
    </form>
  );
}
