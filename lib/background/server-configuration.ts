import { issueVariable, readSettings, runMode, serverSettingsIssues, SettingsError, type Settings } from "@/lib/config/settings";
import { EndpointConfigError, loadEndpoints, type EndpointSet } from "@/lib/endpoints/endpoints";

/** A server's checked configuration, or every problem that stops it (each naming a variable, never a value). */
export type ServerConfiguration = { ok: true; settings: Settings; endpoints: EndpointSet } | { ok: false; issues: string[] };

/**
 * Checks everything a server process (dashboard, API, webhooks; `npm start`, `npm run demo`, a bare
 * `next start`, `npm run receiver`) needs before it answers anything: the settings, production's rules
 * (no public demo value, AUTH_SECRET set and long enough) and every endpoint's configuration.
 * Returns the settings and endpoints, or all the issues at once so an operator fixes them in one go.
 */
export function checkServerConfiguration(env: Record<string, string | undefined> = process.env, { needsAuth = true } = {}): ServerConfiguration {
  // Each check runs whatever the others found: a wrong setting must not hide a missing AUTH_SECRET or a
  // bad endpoint secret until the next start.
  let config: Settings | undefined;
  const issues: string[] = [];
  try {
    config = readSettings(env);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    issues.push(...error.issues);
  }
  if (needsAuth) {
    // Without valid settings, the same rule read from the variable itself (production is the default mode).
    issues.push(...serverSettingsIssues(config ?? { ACREDITA_MODE: runMode(env), AUTH_SECRET: env.AUTH_SECRET?.trim() || undefined }));
  }
  let endpoints: EndpointSet | undefined;
  try {
    endpoints = loadEndpoints(env);
  } catch (error) {
    // An endpoint reads the process's settings for its tolerance: when they are wrong, their issues are listed above.
    if (error instanceof SettingsError && issues.length > 0) return { ok: false, issues };
    if (!(error instanceof EndpointConfigError)) throw error;
    // One issue per variable: a demo value the settings already named is not repeated by its endpoint.
    const named = new Set(issues.map(issueVariable));
    issues.push(...error.issues.filter((issue) => !named.has(issueVariable(issue))));
  }
  if (issues.length > 0 || !config || !endpoints) return { ok: false, issues };
  return { ok: true, settings: config, endpoints };
}
