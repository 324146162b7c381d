"use client";
import { useTranslations } from "next-intl";
import { startTransition, useActionState, useEffect, useRef, useState, type FormEvent } from "react";
import type { ActionResult } from "@/lib/auth/run-action";
import { useRouter } from "next/navigation";
import { createEndpointAction, deleteEndpointAction, removeApiKeyAction, requestBackfillAction, retireSecretAction, rotateSecretAction, setApiKeyAction, setEndpointStatusAction, type SecretActionResult } from "./actions";

const PROVIDERS = ["stripe", "yolfi", "standard-webhooks", "lab"] as const;
type Provider = (typeof PROVIDERS)[number];

/** Whether a provider's secret comes from the provider (typed here) or may be made by Acredita. */
const SUPPLIED: Record<Provider, boolean> = { stripe: true, yolfi: true, "standard-webhooks": false, lab: false };

function Status({ state }: { state: ActionResult | null }) {
  return (
    <div role="status" aria-live="polite" style={{ flexBasis: "100%" }}>
      {state ? <p className={`notice ${state.tone}`}>{state.messages.join(" ")}</p> : null}
    </div>
  );
}

/** A secret Acredita made, shown once: after this answer no page or API shows it again. */
function GeneratedSecret({ secret }: { secret: string | undefined }) {
  const t = useTranslations("endpoints.data");
  if (!secret) return null;
  return (
    <div className="notice warn" data-testid="generated-secret-notice" style={{ flexBasis: "100%" }}>
      <p>{t("secretOnce")}</p>
      <code className="mono wrap" data-testid="generated-secret">
        {secret}
      </code>
    </div>
  );
}

/**
 * The create form: the provider decides the fields (Stripe and Yolfi need the provider's secret; a
 * Standard Webhooks endpoint may take a field mapping). A typed secret is never sent back; a refused
 * form keeps what was typed, a created endpoint clears it.
 */
export function CreateEndpointForm() {
  const t = useTranslations("endpoints.data");
  const [state, action, pending] = useActionState<SecretActionResult | null, FormData>(createEndpointAction, null);
  const [provider, setProvider] = useState<Provider>("stripe");
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state?.ok) {
      form.current?.reset();
      setProvider("stripe");
    }
  }, [state]);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    startTransition(() => action(data));
  };
  return (
    <form ref={form} onSubmit={submit} className="filters" aria-label={t("createTitle")} data-testid="create-endpoint">
      <div className="field">
        <label htmlFor="de-provider">{t("provider")}</label>
        <select id="de-provider" name="provider" value={provider} onChange={(event) => setProvider(event.target.value as Provider)}>
          {PROVIDERS.map((value) => (
            <option key={value} value={value}>
              {t(`providerName.${value}`)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="de-account">{t(`accountLabel.${provider}`)}</label>
        <input id="de-account" name="account" required maxLength={255} pattern="[^:\s]+" autoComplete="off" placeholder={t(`accountPlaceholder.${provider}`)} />
      </div>
      <div className="field">
        <label htmlFor="de-livemode">{t("livemode")}</label>
        <select id="de-livemode" name="livemode" defaultValue="live">
          <option value="live">{t("live")}</option>
          <option value="test">{t("test")}</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="de-mode">{t("processingMode")}</label>
        <select id="de-mode" name="processingMode" defaultValue="default">
          <option value="default">{t("modeDefault")}</option>
          <option value="inbox">{t("modeInbox")}</option>
          <option value="inline">{t("modeInline")}</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="de-secret">{SUPPLIED[provider] ? t("secretRequired") : t("secretOptional")}</label>
        <input id="de-secret" name="secret" type="password" required={SUPPLIED[provider]} maxLength={1024} autoComplete="off" aria-describedby="de-secret-help" />
      </div>
      {provider === "standard-webhooks" ? (
        <div className="field" style={{ flexBasis: "100%" }}>
          <label htmlFor="de-options">{t("options")}</label>
          <textarea id="de-options" name="options" rows={4} maxLength={20_000} spellCheck={false} className="mono" aria-describedby="de-options-help" />
          <small id="de-options-help" className="muted">
            {t("optionsHelp")}
          </small>
        </div>
      ) : null}
      <p id="de-secret-help" className="muted" style={{ flexBasis: "100%" }}>
        {t(`secretHelp.${provider}`)}
      </p>
      <button type="submit" disabled={pending}>
        {t("create")}
      </button>
      <Status state={state} />
      <GeneratedSecret secret={state?.secret} />
    </form>
  );
}

/** Rotation: a new secret (typed for Stripe and Yolfi, made here for the others) and how long the previous ones keep verifying. */
export function RotateSecretForm({ id, provider }: { id: string; provider: string }) {
  const t = useTranslations("endpoints.data");
  const [state, action, pending] = useActionState<SecretActionResult | null, FormData>(rotateSecretAction, null);
  const supplied = SUPPLIED[provider as Provider] ?? true;
  return (
    <form action={action} className="filters" aria-label={t("rotateTitle", { id })} data-testid="rotate-secret">
      <input type="hidden" name="id" value={id} />
      {supplied ? (
        <div className="field">
          <label htmlFor={`rot-secret-${id}`}>{t("newSecret")}</label>
          <input id={`rot-secret-${id}`} name="secret" type="password" required maxLength={1024} autoComplete="off" />
        </div>
      ) : null}
      <div className="field">
        <label htmlFor={`rot-overlap-${id}`}>{t("overlapSeconds")}</label>
        <input id={`rot-overlap-${id}`} name="overlapSeconds" type="number" min={0} max={604800} step={1} defaultValue={86400} required />
      </div>
      <button type="submit" className="secondary" disabled={pending}>
        {t("rotate")}
      </button>
      <Status state={state} />
      <GeneratedSecret secret={state?.secret} />
    </form>
  );
}

/** One button posting an action for a data endpoint (enable, disable, retire a secret). */
function RowButton({ action: serverAction, fields, label, testId }: { action: typeof setEndpointStatusAction; fields: Record<string, string>; label: string; testId: string }) {
  const [state, action, pending] = useActionState(serverAction, null);
  return (
    <form action={action} className="row-actions">
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button type="submit" className="secondary" disabled={pending} data-testid={testId}>
        {label}
      </button>
      <span role="status" aria-live="polite">
        {state ? <span className={state.ok ? "muted" : "diff-bad"}>{state.messages.join(" ")}</span> : null}
      </span>
    </form>
  );
}

export function StatusButton({ id, status }: { id: string; status: "enabled" | "disabled" }) {
  const t = useTranslations("endpoints.data");
  const next = status === "enabled" ? "disabled" : "enabled";
  return <RowButton action={setEndpointStatusAction} fields={{ id, status: next }} label={t(next === "disabled" ? "disable" : "enable")} testId="endpoint-status" />;
}

export function RetireSecretButton({ id, label }: { id: string; label: string }) {
  const t = useTranslations("endpoints.data");
  return <RowButton action={retireSecretAction} fields={{ id, label }} label={t("retire", { label })} testId="retire-secret" />;
}

/** Deleting asks for a confirmation in the form itself: the URL answers 404 from then on. */
export function DeleteEndpointForm({ id }: { id: string }) {
  const t = useTranslations("endpoints.data");
  const [state, action, pending] = useActionState(deleteEndpointAction, null);
  return (
    <form action={action} className="row-actions" data-testid="delete-endpoint">
      <input type="hidden" name="id" value={id} />
      <label>
        <input type="checkbox" name="confirm" value="yes" required /> {t("deleteConfirm")}
      </label>
      <button type="submit" className="secondary" disabled={pending}>
        {t("delete")}
      </button>
      <span role="status" aria-live="polite">
        {state ? <span className={state.ok ? "muted" : "diff-bad"}>{state.messages.join(" ")}</span> : null}
      </span>
    </form>
  );
}

/**
 * A Stripe endpoint's API key: typed once into a password field, saved encrypted, never shown again
 * (the page shows only when it was set); a saved key can be replaced or removed.
 */
export function ApiKeyForm({ id, set }: { id: string; set: boolean }) {
  const t = useTranslations("endpoints.data");
  const [state, action, pending] = useActionState(setApiKeyAction, null);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state?.ok) form.current?.reset();
  }, [state]);
  return (
    <>
      <form ref={form} action={action} className="filters" aria-label={t("apiHeading")} data-testid="api-key-form">
        <input type="hidden" name="id" value={id} />
        <div className="field">
          <label htmlFor={`api-key-${id}`}>{t("apiKeyLabel")}</label>
          <input id={`api-key-${id}`} name="apiKey" type="password" required maxLength={255} autoComplete="off" spellCheck={false} />
        </div>
        <button type="submit" className="secondary" disabled={pending}>
          {t("apiKeySave")}
        </button>
        <Status state={state} />
      </form>
      {set ? <RowButton action={removeApiKeyAction} fields={{ id }} label={t("apiKeyRemove")} testId="api-key-remove" /> : null}
    </>
  );
}

/** Asks for a backfill of the endpoint's last 72 hours; a worker runs it, and the page shows its progress. */
export function BackfillButton({ id, hours }: { id: string; hours: number }) {
  const t = useTranslations("endpoints.data");
  return <RowButton action={requestBackfillAction} fields={{ id }} label={t("backfill", { hours })} testId="backfill" />;
}

/** While a backfill is queued or running, reads the page again every 2 s so its counts appear when it is done. */
export function RefreshWhileRunning({ running }: { running: boolean }) {
  const router = useRouter();
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => router.refresh(), 2_000);
    return () => clearInterval(timer);
  }, [running, router]);
  return null;
}
