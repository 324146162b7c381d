// The attacking clients of the flood benchmark (bench/flood-bench.ts), usable in the benchmark's own
// process or, as a script, in a process of their own:
//
//   node --import tsx bench/flood-attacker.ts '<AttackSpec as JSON>'
//
// prints "attacking" once the attack runs, and on SIGTERM stops it and prints its AttackStats as one
// JSON line. In a process of its own the attack's CPU (encoding and writing megabytes, opening hundreds
// of connections) no longer delays the benchmark's timing of real deliveries in its event loop.
import { Agent, request } from "node:http";
import { connect, type Socket } from "node:net";

/** One attack: anonymous server-action posts, or stalled webhook bodies. */
export type AttackSpec =
  | {
      kind: "action";
      url: string;
      /** Concurrent clients, each posting again as soon as it is answered. */
      attackers: number;
      /** The real action id to post to (the dead-letter retry action's), and the keys of the posted object. */
      actionId: string;
      keys: number;
      /** The client address the posts come from. */
      localAddress: string;
    }
  | {
      kind: "slow-bodies";
      url: string;
      /** Connections kept open at once, each sending all but the last byte of a 1 MiB webhook body. */
      stalled: number;
      /** The client address they come from. */
      localAddress: string;
      /** How long a closed connection waits before it is opened again (ms). */
      reopenAfterMs: number;
    };

/** What an attack sent and how it was answered (by status; "0": reset or closed without an answer). */
export interface AttackStats {
  sent: number;
  bytesPerRequest: number;
  answers: Record<string, number>;
}

/** A running attack. */
export interface Attack {
  stop(): Promise<AttackStats>;
}

const STALLING_BODY_BYTES = 1_048_576;

/** The fetch-action body of `keys` keys, as React encodes an action's arguments: an object of `"k<i>":0` pairs. */
export function actionBody(keys: number): Buffer {
  return Buffer.from(`[{${Array.from({ length: keys }, (_, i) => `"k${i}":0`).join(",")}}]`);
}

/** Starts `spec`'s attack in this process. */
export function startAttack(spec: AttackSpec): Attack {
  return spec.kind === "action" ? startActionAttack(spec) : startSlowBodyAttack(spec);
}

/**
 * `spec.attackers` anonymous clients, each posting the action body again as soon as its last post was
 * answered (or failed), each post on a connection of its own, from `spec.localAddress`.
 */
function startActionAttack(spec: Extract<AttackSpec, { kind: "action" }>): Attack {
  const url = new URL(spec.url);
  const body = actionBody(spec.keys);
  const agent = new Agent({ keepAlive: false, maxSockets: spec.attackers });
  const answers: Record<string, number> = {};
  let sent = 0;
  let attacking = true;
  const postOnce = () =>
    new Promise<void>((resolve) => {
      sent += 1;
      // The first outcome counts: a refused post can be answered and then reset while its body is still going out.
      let settled = false;
      const settle = (status: number) => {
        if (settled) return;
        settled = true;
        answers[status] = (answers[status] ?? 0) + 1;
        resolve();
      };
      const outgoing = request(
        { host: url.hostname, port: url.port, localAddress: spec.localAddress, path: "/dead-letters", method: "POST", agent, headers: { "next-action": spec.actionId, "content-type": "text/plain;charset=UTF-8", origin: spec.url, "content-length": body.length } },
        (response) => {
          response.resume();
          settle(response.statusCode ?? 0);
        },
      );
      outgoing.once("error", () => settle(0));
      outgoing.setTimeout(30_000, () => outgoing.destroy(new Error("timeout")));
      outgoing.end(body);
    });
  const clients = Array.from({ length: spec.attackers }, async () => {
    while (attacking) await postOnce();
  });
  return {
    stop: async () => {
      attacking = false;
      await Promise.all(clients);
      agent.destroy();
      return { sent, bytesPerRequest: body.length, answers };
    },
  };
}

/**
 * `spec.stalled` connections from `spec.localAddress`, each sending all but the last byte of a 1 MiB
 * webhook body and stalling; each re-opened `spec.reopenAfterMs` after the server closes it.
 * Answers are counted by the status of their first line ("closed": no answer).
 */
function startSlowBodyAttack(spec: Extract<AttackSpec, { kind: "slow-bodies" }>): Attack {
  const url = new URL(spec.url);
  // One Buffer written to every connection: a string would be encoded again each time.
  const stalling = Buffer.from(`POST /api/webhooks/lab HTTP/1.1\r\nhost: acredita\r\ncontent-type: application/json\r\ncontent-length: ${STALLING_BODY_BYTES}\r\n\r\n${" ".repeat(STALLING_BODY_BYTES - 1)}`, "latin1");
  const answers: Record<string, number> = {};
  const sockets = new Set<Socket>();
  let sent = 0;
  let attacking = true;
  const open = (): void => {
    if (!attacking) return;
    sent += 1;
    const socket = connect({ host: url.hostname, port: Number(url.port), localAddress: spec.localAddress });
    sockets.add(socket);
    let first = "";
    socket.on("data", (chunk: Buffer) => {
      if (first.length < 12) first += chunk.toString("latin1");
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      sockets.delete(socket);
      if (!attacking) return;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(first)?.[1] ?? "closed";
      answers[status] = (answers[status] ?? 0) + 1;
      setTimeout(open, spec.reopenAfterMs);
    });
    socket.once("connect", () => socket.write(stalling));
  };
  for (let i = 0; i < spec.stalled; i++) open();
  return {
    stop: async () => {
      attacking = false;
      for (const socket of sockets) socket.destroy();
      return { sent, bytesPerRequest: stalling.length, answers };
    },
  };
}

// As a script: one attack, until SIGTERM.
if (process.argv[1]?.endsWith("flood-attacker.ts")) {
  const attack = startAttack(JSON.parse(process.argv[2]) as AttackSpec);
  process.stdout.write("attacking\n");
  process.once("SIGTERM", () => {
    void attack.stop().then((stats) => {
      process.stdout.write(`${JSON.stringify(stats)}\n`);
      process.exit(0);
    });
  });
}
