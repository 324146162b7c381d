"use client";
import { useTranslations } from "next-intl";
import { useActionState, useEffect, useRef, useState } from "react";
import type { ActionResult } from "@/lib/auth/run-action";
import { addChannelAction, removeChannelAction, saveRuleAction, type ChannelActionResult } from "./actions";

function Status({ state, testId }: { state: ActionResult | null; testId?: string }) {
  return (
    <div role="status" aria-live="polite" style={{ flexBasis: "100%" }} data-testid={testId}>
      {state ? <p className={`notice ${state.tone}`}>{state.messages.join(" ")}</p> : null}
    </div>
  );
}

/** Adds a channel; a webhook channel's generated secret is shown once, in this answer. */
export function AddChannelForm() {
  const t = useTranslations("alerts");
  const [state, action, pending] = useActionState<ChannelActionResult | null, FormData>(addChannelAction, null);
  const [kind, setKind] = useState<"webhook" | "slack" | "email">("webhook");
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state?.ok) form.current?.reset();
  }, [state]);
  return (
    <form ref={form} action={action} className="filters" aria-label={t("addTitle")} data-testid="add-channel">
      <div className="field">
        <label htmlFor="ac-kind">{t("kind")}</label>
        <select id="ac-kind" name="kind" value={kind} onChange={(event) => setKind(event.target.value as typeof kind)}>
          {(["webhook", "slack", "email"] as const).map((value) => (
            <option key={value} value={value}>
              {t(`kindName.${value}`)}
            </option>
          ))}
        </select>
      </div>
      {kind === "email" ? (
        <div className="field">
          <label htmlFor="ac-to">{t("to")}</label>
          <input id="ac-to" name="to" type="email" required maxLength={254} autoComplete="off" />
        </div>
      ) : (
        <div className="field">
          <label htmlFor="ac-url">{t("url")}</label>
          <input id="ac-url" name="url" type="url" required maxLength={2000} size={40} autoComplete="off" />
        </div>
      )}
      <button type="submit" disabled={pending}>
        {t("add")}
      </button>
      <Status state={state} testId="add-channel-status" />
      {state?.secret ? (
        <div className="notice warn" data-testid="channel-secret-notice" style={{ flexBasis: "100%" }}>
          <p>{t("secretOnce")}</p>
          <code className="mono wrap" data-testid="channel-secret">
            {state.secret}
          </code>
        </div>
      ) : null}
    </form>
  );
}

export function RemoveChannelButton({ id }: { id: string }) {
  const t = useTranslations("alerts");
  const [state, action, pending] = useActionState<ActionResult | null, FormData>(removeChannelAction, null);
  return (
    <form action={action} onSubmit={(event) => (window.confirm(t("removeConfirm")) ? undefined : event.preventDefault())}>
      <input type="hidden" name="id" value={id} />
      <button type="submit" className="secondary" disabled={pending} data-testid={`remove-${id}`}>
        {t("remove")}
      </button>
      {state && !state.ok ? <Status state={state} /> : null}
    </form>
  );
}

export function RuleForm({ rule, enabled, threshold, min, max }: { rule: string; enabled: boolean; threshold: number; min: number; max: number }) {
  const t = useTranslations("alerts");
  const [state, action, pending] = useActionState<ActionResult | null, FormData>(saveRuleAction, null);
  return (
    <form action={action} data-testid={`rule-form-${rule}`}>
      <input type="hidden" name="rule" value={rule} />
      <label>
        <input type="checkbox" name="enabled" defaultChecked={enabled} /> {t("enabled")}
      </label>{" "}
      <label>
        <span className="sr-only">{t("threshold")}</span>
        <input type="number" name="threshold" defaultValue={threshold} min={min} max={max} required style={{ width: "7em" }} />
      </label>{" "}
      <button type="submit" className="secondary" disabled={pending}>
        {t("save")}
      </button>
      <Status state={state} />
    </form>
  );
}
