import { LAB_ORDERS } from "@/lib/demo/lab-orders";
import { LAB_SETTLEMENT, LAB_STEPS, PROVIDER_RETRY_DELAYS_SECONDS, formatSimTime, labBody, type LabStep } from "@/lib/lab/scenario";
import type { Mismatch } from "@/lib/reconciliation/compare";
import type { ReconciliationReport } from "@/lib/reconciliation/reconcile";
import { formatSettlementCsv } from "@/lib/reconciliation/settlement-csv";
import { LAB_SIGNATURE_HEADER } from "@/lib/providers/lab";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { ENGLISH_CLI, type CliReasons } from "@/lib/reasons/cli-reasons";

/** Where and how the lab talks to a running Acredita. */
export interface LabOptions {
  url: string;
  apiToken: string;
  /** The provider's signing secret (the first of LAB_WEBHOOK_SECRET). */
  secret: string;
  /** Real milliseconds per simulated minute (compressed time). */
  msPerSimulatedMinute?: number;
  print?: (line: string) => void;
  /** The locale the delivery lines are printed in (English without one). */
  view?: CliReasons;
  /** How long to wait for the server to apply the lab's own stored events (inbox mode) before giving up: 60 s without one. */
  waitSeconds?: number;
}

/** One of the lab's events still waiting to be applied when the lab stopped waiting. */
export interface UnappliedLabEvent {
  eventId: string;
  orderId: string;
  status: string;
}

/**
 * Thrown when the server has not applied every event the lab stored within the wait: names each such
 * event (id, order, status) in the lab's locale, so the operator can look them up.
 */
export class LabWaitTimeout extends Error {
  constructor(
    readonly unapplied: UnappliedLabEvent[],
    readonly waitSeconds: number,
    view: CliReasons = ENGLISH_CLI,
  ) {
    const events = unapplied.map((event) => view.t("reasons.lab.waitEvent", { eventId: event.eventId, orderId: event.orderId, status: event.status })).join(", ");
    super(view.t("reasons.lab.waitTimedOut", { count: unapplied.length, seconds: waitSeconds, events }));
    this.name = "LabWaitTimeout";
  }
}

/** One delivery as the lab saw it. */
export interface LabDeliveryResult {
  atSeconds: number;
  scenario: number;
  eventId: string;
  what: LabStep["what"];
  attempt: number;
  status: number;
  outcome: string;
  reason: string;
}

/** What `runLab` returns: every delivery, the settlement CSV it wrote, and the server's reconciliation. */
export interface LabRun {
  deliveries: LabDeliveryResult[];
  settlementCsv: string;
  report: Pick<ReconciliationReport, "mismatches" | "overcredited" | "rowCount" | "orderCount"> & { runId: string };
}

const ATTACKER_KEY = "attacker_guessed_key_0000";

async function postJson(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { outcome: "?", reason: text.slice(0, 200) };
  }
  return { status: response.status, json };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Widths of the delivery table's "what" and "outcome" columns: Spanish descriptions and outcomes ("en cola de errores") are longer. */
function columnWidths(view: CliReasons): { what: number; outcome: number } {
  return view.locale === "en" ? { what: 52, outcome: 13 } : { what: 72, outcome: 19 };
}

/** The delivery table's header row in `view`'s locale (English without one). */
export function formatDeliveryHeader(view: CliReasons = ENGLISH_CLI): string {
  const word = (key: string) => view.t(`reasons.lab.header.${key}`);
  const width = columnWidths(view);
  return `${word("time").padEnd(7)} ${word("event").padEnd(9)} ${word("what").padEnd(width.what)} ${"HTTP".padEnd(4)} ${word("outcome").padEnd(width.outcome)} ${word("reason")}`;
}

/**
 * Formats one delivery line: time, event, what it was, status, outcome and reason, in `view`'s locale
 * (English without one). The reason is the server's answer to the provider as received, English like
 * the server's logs: a provider's integrator greps those.
 */
export function formatDelivery(result: LabDeliveryResult, view: CliReasons = ENGLISH_CLI): string {
  const what = view.t(`reasons.lab.step.${result.what.key}`, result.what.values);
  const attempt = result.attempt > 1 ? view.t("reasons.lab.retry", { n: String(result.attempt - 1) }) : "";
  const outcome = view.locale === "en" ? result.outcome : view.outcome(result.outcome);
  const width = columnWidths(view);
  return `${formatSimTime(result.atSeconds).padEnd(7)} ${result.eventId.padEnd(9)} ${`${what}${attempt}`.padEnd(width.what)} ${String(result.status).padEnd(4)} ${outcome.padEnd(width.outcome)} ${result.reason}`;
}

/**
 * Plays the lab provider against a running Acredita over HTTP: makes sure the five lab orders exist
 * (POST /api/orders, idempotent), sends the five scenarios' deliveries in simulated time, retries any
 * non-2xx from the provider after 60/120/240 simulated seconds (attackers never retry), waits until
 * the server has applied the lab's own stored events (inbox mode; never for other traffic), uploads
 * the settlement CSV to POST /api/reconciliations (202), waits for its run to be done
 * (GET /api/reconciliations/{id}) and returns everything. Throws when the server cannot be reached or
 * refuses the API token, and {@link LabWaitTimeout} when its events are still unapplied after `waitSeconds`.
 */
export async function runLab(options: LabOptions): Promise<LabRun> {
  const print = options.print ?? (() => {});
  const auth = { authorization: `Bearer ${options.apiToken}` };
  const msPerMinute = options.msPerSimulatedMinute ?? 200;

  for (const order of LAB_ORDERS) {
    const { status, json } = await postJson(`${options.url}/api/orders`, JSON.stringify(order), auth);
    if (status !== 200 && status !== 201) throw new Error(`creating ${order.id}: HTTP ${status} ${String(json.error ?? "")}`);
  }

  const queue: { step: LabStep; atSeconds: number; attempt: number }[] = LAB_STEPS.map((step) => ({ step, atSeconds: step.atSeconds, attempt: 1 }));
  const deliveries: LabDeliveryResult[] = [];
  let clock = 0;

  while (queue.length > 0) {
    queue.sort((a, b) => a.atSeconds - b.atSeconds);
    const next = queue.shift()!;
    await sleep(Math.min(2_000, Math.max(0, ((next.atSeconds - clock) / 60) * msPerMinute)));
    clock = next.atSeconds;
    const { step } = next;
    const body = labBody(step);
    const signedAt = Math.floor(Date.now() / 1000) + (step.signedOffsetSeconds ?? 0);
    const headers = { [LAB_SIGNATURE_HEADER]: signTimestamped(step.forged ? ATTACKER_KEY : options.secret, signedAt, body) };
    const copies = step.concurrent ?? 1;
    const answers = await Promise.all(Array.from({ length: copies }, () => postJson(`${options.url}/api/webhooks/lab`, body, headers)));
    for (const answer of answers) {
      const result: LabDeliveryResult = {
        atSeconds: next.atSeconds,
        scenario: step.scenario,
        eventId: step.event.id,
        what: step.what,
        attempt: next.attempt,
        status: answer.status,
        outcome: String(answer.json.outcome ?? "?"),
        reason: String(answer.json.reason ?? ""),
      };
      deliveries.push(result);
      print(formatDelivery(result, options.view));
    }
    const failed = answers.some((answer) => answer.status < 200 || answer.status >= 300);
    if (failed && step.sender === "provider" && next.attempt <= PROVIDER_RETRY_DELAYS_SECONDS.length) {
      queue.push({ step, atSeconds: next.atSeconds + PROVIDER_RETRY_DELAYS_SECONDS[next.attempt - 1], attempt: next.attempt + 1 });
    }
  }

  await waitForOwnEvents(options.url, auth, options.waitSeconds ?? 60, options.view);

  const settlementCsv = formatSettlementCsv(LAB_SETTLEMENT);
  const response = await fetch(`${options.url}/api/reconciliations?source=lab&format=lab`, { method: "POST", body: settlementCsv, headers: { ...auth, "content-type": "text/csv" } });
  if (response.status !== 202) throw new Error(`reconciliation: HTTP ${response.status} ${await response.text()}`);
  const { runId } = (await response.json()) as { runId: string };
  const report = await waitForRun(options.url, auth, runId);
  return { deliveries, settlementCsv, report };
}

interface RunAnswer {
  run: { status: string; error: string | null; progress: { rows: number }; orderCount: number; overcredited: Record<string, number> };
  mismatches: { data: { orderId: string; currency: string; order?: Omit<Mismatch, "orderId" | "currency"> }[]; totalPages: number };
}

/** Polls GET /api/reconciliations/{id} (at most 60 s) until the run is done, then reads every page of its mismatches. Throws when it failed. */
async function waitForRun(url: string, auth: Record<string, string>, runId: string): Promise<LabRun["report"]> {
  const deadline = Date.now() + 60_000;
  const read = async (page: number) => {
    const response = await fetch(`${url}/api/reconciliations/${runId}?page=${page}&pageSize=500&sort=orderId`, { headers: auth });
    if (response.status !== 200) throw new Error(`reconciliation ${runId}: HTTP ${response.status} ${await response.text()}`);
    return (await response.json()) as RunAnswer;
  };
  for (;;) {
    const first = await read(1);
    if (first.run.status === "failed") throw new Error(`reconciliation ${runId} failed: ${first.run.error}`);
    if (first.run.status === "done") {
      const rows = [...first.mismatches.data];
      for (let page = 2; page <= first.mismatches.totalPages; page++) rows.push(...(await read(page)).mismatches.data);
      const mismatches = rows.map((row) => ({ orderId: row.orderId, currency: row.currency, ...row.order! }) as Mismatch);
      return { runId, rowCount: first.run.progress.rows, orderCount: first.run.orderCount, mismatches, overcredited: first.run.overcredited };
    }
    if (Date.now() > deadline) throw new Error(`reconciliation ${runId} still ${first.run.status} after 60 s`);
    await sleep(100);
  }
}

/** The inbox statuses of an event stored and not yet applied or dead-lettered (lib/monitoring/operational-metrics.ts). */
const UNAPPLIED_STATUSES = new Set(["received", "processing", "failed"]);

/** The lab's own events as the server stored them, read from its orders (GET /api/orders/{id}), that are not applied yet. */
async function unappliedLabEvents(url: string, auth: Record<string, string>): Promise<UnappliedLabEvent[]> {
  const ids = new Set(LAB_STEPS.filter((step) => step.sender === "provider").map((step) => step.event.id));
  const orderIds = [...new Set(LAB_STEPS.filter((step) => step.sender === "provider").map((step) => step.event.orderId))];
  const unapplied: UnappliedLabEvent[] = [];
  for (const orderId of orderIds) {
    const response = await fetch(`${url}/api/orders/${orderId}`, { headers: auth });
    if (response.status !== 200) throw new Error(`reading ${orderId}: HTTP ${response.status} ${await response.text()}`);
    const order = (await response.json()) as { events: { provider: string; eventId: string; status: string }[] };
    for (const event of order.events) {
      if (event.provider === "lab" && ids.has(event.eventId) && UNAPPLIED_STATUSES.has(event.status)) unapplied.push({ eventId: event.eventId, orderId, status: event.status });
    }
  }
  return unapplied.sort((a, b) => a.eventId.localeCompare(b.eventId));
}

/**
 * In inbox mode a 2xx only means "stored": wait (at most `waitSeconds`) until the server has applied
 * or dead-lettered every event of the lab's. Only the lab's own events count: another provider's
 * event retried for minutes on the same server is none of the lab's business. Inline mode applies
 * before answering, so the first look finds nothing to wait for.
 */
async function waitForOwnEvents(url: string, auth: Record<string, string>, waitSeconds: number, view?: CliReasons): Promise<void> {
  const deadline = Date.now() + waitSeconds * 1000;
  for (;;) {
    const unapplied = await unappliedLabEvents(url, auth);
    if (unapplied.length === 0) return;
    if (Date.now() >= deadline) throw new LabWaitTimeout(unapplied, waitSeconds, view);
    await sleep(250);
  }
}
