import { readSettings, SettingsError, type Settings } from "@/lib/config/settings";

/**
 * A command's settings read from `env`, or undefined after `fail` was given the reason (a setting that
 * does not validate: the command then exits 2). Errors other than a settings error are thrown.
 */
export function cliSettings(env: Record<string, string | undefined>, fail: (line: string) => void): Settings | undefined {
  try {
    return readSettings(env);
  } catch (error) {
    if (error instanceof SettingsError) {
      fail(error.message);
      return undefined;
    }
    throw error;
  }
}
