// The alert evaluator: for each organization and each enabled rule, reads where the rule's condition
// holds (lib/alerts/alert-rules.ts), opens an incident once per (rule, key), counts repeats into it, and
// resolves it once when the condition clears. Each open and each resolution queues one notice per
// enabled channel in the outbox, in the same transaction, under a stable idempotency key.
import type { Db } from "@/lib/db/client";
import { PollLoop } from "@/lib/jobs/poll-loop";
import { errorMessage } from "@/lib/log/error-message";
import { logger } from "@/lib/log/logger";
import { notifyWork, onWork } from "@/lib/jobs/signals";
import { alertNoticeBody } from "@/lib/alerts/alert-message";
import { RULE_READS, ruleSettings } from "@/lib/alerts/alert-rules";
import { enabledAlertChannels, openIncident, openIncidents, resolveIncident, touchIncident } from "@/lib/alerts/alert-store";

/** What one evaluation did, for the logs and the tests. */
export interface EvaluationReport {
  opened: { organizationId: string; rule: string; key: string; incidentId: string }[];
  resolved: { organizationId: string; rule: string; key: string; incidentId: string }[];
  /** Rules whose read failed (logged); their incidents are left as they were. */
  failed: { organizationId: string; rule: string; error: string }[];
}

/** Evaluates every rule of one organization at `now`. */
export async function evaluateOrganization(db: Db, organizationId: string, now: Date, report: EvaluationReport = { opened: [], resolved: [], failed: [] }): Promise<EvaluationReport> {
  const [rules, channels, open] = await Promise.all([ruleSettings(db, organizationId), enabledAlertChannels(db, organizationId), openIncidents(db, organizationId)]);
  for (const setting of rules) {
    const openOfRule = new Map(open.filter((incident) => incident.rule === setting.rule).map((incident) => [incident.key, incident]));
    let observations: Awaited<ReturnType<(typeof RULE_READS)[typeof setting.rule]>> = [];
    if (setting.enabled) {
      try {
        observations = await RULE_READS[setting.rule](db, { organizationId, threshold: setting.threshold, now, open: openOfRule });
      } catch (error) {
        report.failed.push({ organizationId, rule: setting.rule, error: errorMessage(error) });
        logger.error({ organizationId, rule: setting.rule, err: errorMessage(error) }, "alert rule could not be evaluated");
        continue;
      }
    }
    const holding = new Set<string>();
    for (const observation of observations) {
      holding.add(observation.key);
      const incident = openOfRule.get(observation.key);
      if (incident) {
        await touchIncident(db, incident.id, observation, now);
        continue;
      }
      const opened = await openIncident(db, organizationId, setting.rule, observation, channels, alertNoticeBody, now);
      if (opened) {
        report.opened.push({ organizationId, rule: setting.rule, key: observation.key, incidentId: opened.id });
        logger.warn({ organizationId, rule: setting.rule, key: observation.key, incidentId: opened.id, count: observation.count }, "alert opened");
      }
    }
    // A disabled rule's incidents resolve too: nothing watches them any more.
    for (const incident of openOfRule.values()) {
      if (holding.has(incident.key)) continue;
      if (await resolveIncident(db, incident, channels, alertNoticeBody, now)) {
        report.resolved.push({ organizationId, rule: setting.rule, key: incident.key, incidentId: incident.id });
        logger.info({ organizationId, rule: setting.rule, key: incident.key, incidentId: incident.id }, "alert resolved");
      }
    }
  }
  return report;
}

/** Evaluates every organization's rules at `now`; wakes this process's outbox dispatcher when a notice was queued. */
export async function evaluateAlerts(db: Db, now = new Date()): Promise<EvaluationReport> {
  const report: EvaluationReport = { opened: [], resolved: [], failed: [] };
  const organizations = await db.organization.findMany({ select: { id: true }, orderBy: { id: "asc" } });
  for (const { id } of organizations) await evaluateOrganization(db, id, now, report);
  if (report.opened.length + report.resolved.length > 0) notifyWork("outbox");
  return report;
}

/** How long after a dead letter's signal the evaluator looks. */
export const ALERT_WAKE_DELAY_MS = 500;

/**
 * The evaluator inside a worker (started with the inbox worker): every `intervalMs`
 * (ALERTS_CHECK_INTERVAL_SECONDS, default 60 s; 0: never started). Several processes may evaluate at
 * the same moment: the UNIQUE open key lets one of them open an incident, the guarded UPDATE lets one
 * of them resolve it, and the notices' UNIQUE idempotency keys send each one once.
 */
export class AlertScheduler {
  private readonly loop: PollLoop;
  private unsubscribe: (() => void) | undefined;
  private pendingWake: NodeJS.Timeout | undefined;

  constructor(database: () => Promise<Db>, options: { intervalMs: number; now?: () => Date }) {
    const now = options.now ?? (() => new Date());
    this.loop = new PollLoop(
      "alerts",
      async () => {
        await evaluateAlerts(await database(), now());
        return false;
      },
      options.intervalMs,
    );
  }

  /** Starts the loop; a dead letter recorded in this process wakes it (after {@link ALERT_WAKE_DELAY_MS}), so the first alert does not wait for the interval. */
  start(): void {
    this.loop.start();
    this.unsubscribe ??= onWork("alerts", () => {
      // The dead letter's transaction may not have committed yet when the signal fires.
      this.pendingWake ??= setTimeout(() => {
        this.pendingWake = undefined;
        this.loop.wake();
      }, ALERT_WAKE_DELAY_MS).unref();
    });
  }

  /** Evaluates now instead of at the next interval. */
  wake(): void {
    this.loop.wake();
  }

  stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearTimeout(this.pendingWake);
    this.pendingWake = undefined;
    return this.loop.stop();
  }
}
