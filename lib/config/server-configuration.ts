import { readSettings, serverSettingsIssues, SettingsError, type Settings } from "@/lib/config/settings";
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
  let config: Settings;
  try {
    config = readSettings(env);
  } catch (error) {
    if (error instanceof SettingsError) return { ok: false, issues: error.issues };
    throw error;
  }
  const issues = needsAuth ? serverSettingsIssues(config) : [];
  let endpoints: EndpointSet | undefined;
  try {
    endpoints = loadEndpoints(env);
  } catch (error) {
    if (!(error instanceof EndpointConfigError)) throw error;
    issues.push(...error.issues);
  }
  if (issues.length > 0 || !endpoints) return { ok: false, issues };
  return { ok: true, settings: config, endpoints };
}
