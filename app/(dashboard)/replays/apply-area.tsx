"use client";
import Link from "@/app/_components/organization-link";
import { useTranslations } from "next-intl";
import { useActionState } from "react";
import type { ReplayStatus } from "@/lib/replay/replay-store";
import { applyReplayAction } from "./actions";

/**
 * The replay's apply area, for every status, so the answer of an apply stays on screen when the page
 * re-renders with the new status: previewed, "Apply this replay" (exactly the previewed events, once);
 * stale, a new preview; applied, what it did. The answer of this person's click comes first.
 */
export function ApplyArea({ id, status, previewAgain, done }: { id: string; status: ReplayStatus; previewAgain: string; done: string }) {
  const t = useTranslations("replay");
  const [state, action, pending] = useActionState(applyReplayAction, null);
  return (
    <section aria-labelledby="apply-h" className="replay-apply">
      <h2 id="apply-h">{t("applyTitle")}</h2>
      <div role="status" aria-live="polite" data-testid="apply-result">
        {state ? (
          <p className={`notice ${state.tone}`}>
            {state.messages.join(" ")}{" "}
            {state.tone === "bad" ? (
              <Link href={previewAgain} data-testid="preview-again">
                {t("previewAgain")}
              </Link>
            ) : null}
          </p>
        ) : null}
      </div>
      {status === "previewed" ? (
        <form action={action} className="stack">
          <p className="help">{t("applyHelp")}</p>
          <input type="hidden" name="id" value={id} />
          <button type="submit" disabled={pending} data-testid="apply-replay">
            {pending ? t("applying") : t("apply")}
          </button>
        </form>
      ) : !state && status === "stale" ? (
        <p className="notice bad" data-testid="replay-stale">
          {t("staleNotice")} <Link href={previewAgain}>{t("previewAgain")}</Link>
        </p>
      ) : !state && status === "applied" ? (
        <p className="notice ok" data-testid="replay-done">
          {done}
        </p>
      ) : null}
    </section>
  );
}
