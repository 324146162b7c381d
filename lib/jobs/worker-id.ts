import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

/** A lease owner id unique to this process and worker: `<host>:<pid>:<random>` (shown in the inbox rows it holds). */
export function newWorkerId(kind: string): string {
  return `${workerIdPrefix(kind, process.pid)}${randomUUID().slice(0, 8)}`;
}

/** The start every worker id of `kind` made by process `pid` on this host shares (`<kind>@<host>:<pid>:`): how a parent names what its dead child held. */
export function workerIdPrefix(kind: string, pid: number): string {
  return `${kind}@${hostname()}:${pid}:`;
}
