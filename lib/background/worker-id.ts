import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

/** A lease owner id unique to this process and worker: `<host>:<pid>:<random>` (shown in the inbox rows it holds). */
export function newWorkerId(kind: string): string {
  return `${kind}@${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}
