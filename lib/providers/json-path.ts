/** One step of a JSON path: an object key or an array index. */
export type JsonPathStep = string | number;

const STEP = /^(?:\.([A-Za-z_$][A-Za-z0-9_$-]*)|\[(\d{1,6})\]|\["((?:[^"\\]|\\.)*)"\])/;

/**
 * Parses the small JSON path subset endpoint mappings use: `$` followed by `.key`, `[index]` or
 * `["any key"]` steps, e.g. `$.data.order_id`, `$.items[0].id`, `$["order.id"]`. Returns the steps, or
 * undefined for anything else (filters, wildcards and recursive descent are refused on purpose: a
 * mapping names exactly one value, and a full JSONPath engine would evaluate sender-controlled data
 * with far more machinery than that needs).
 */
export function parseJsonPath(path: string): JsonPathStep[] | undefined {
  if (!path.startsWith("$") || path.length > 200) return undefined;
  const steps: JsonPathStep[] = [];
  let rest = path.slice(1);
  while (rest.length > 0) {
    const match = STEP.exec(rest);
    if (!match) return undefined;
    if (match[1] !== undefined) steps.push(match[1]);
    else if (match[2] !== undefined) steps.push(Number(match[2]));
    else {
      try {
        steps.push(JSON.parse(`"${match[3]}"`) as string);
      } catch {
        return undefined;
      }
    }
    rest = rest.slice(match[0].length);
  }
  return steps.length > 0 ? steps : undefined;
}

/** Reads the value at `steps` in a parsed JSON document; undefined when any step is missing. Own properties only. */
export function readJsonPath(document: unknown, steps: JsonPathStep[]): unknown {
  let current: unknown = document;
  for (const step of steps) {
    if (typeof step === "number") {
      if (!Array.isArray(current) || step >= current.length) return undefined;
      current = current[step];
    } else {
      if (current === null || typeof current !== "object" || Array.isArray(current) || !Object.hasOwn(current, step)) return undefined;
      current = (current as Record<string, unknown>)[step];
    }
  }
  return current;
}
