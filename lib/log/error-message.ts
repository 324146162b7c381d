/**
 * The message of anything thrown, for a log line or an operator's terminal: an Error's message, else
 * the value as a string. Never for a provider's answer: callers map errors to a fixed reason instead.
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
