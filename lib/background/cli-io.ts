// The shape every command of scripts/ shares: `main(argv, env, io)` returns its exit status, writes only
// to `io`, and reads its settings from `env`, so a test calls it in its own process (no tsx start-up per
// case) and reads exactly what a terminal or a pipe would have shown. The file runs it only when executed
// directly (`if (require.main === module)`), with the process's arguments, environment and streams.
// Light on purpose (no database, no logger): the commands that use neither import it alone.

/** Where a command writes, and reads when it asks for something (create-user's password). */
export interface CliIo {
  /** The command's product (a report, a list, a result line scripts grep). */
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  /** Refusals, usage, progress and prompts. */
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Standard input; only a command that prompts reads it (undefined: nothing to read). */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}

/** The environment a command reads its settings from: process.env when run, any set of variables in a test. */
export type CliEnv = Record<string, string | undefined>;

/**
 * A command: takes its arguments (without `node` and the script), the environment it reads its settings
 * from, and its streams; resolves with its exit status. A long-running one (worker, receiver, npm start)
 * resolves when it has stopped.
 */
export type CliMain = (argv: string[], env: CliEnv, io: CliIo) => Promise<number>;

/** The environment of a process a command starts: `env` with `extra` over it. */
export function childEnv(env: CliEnv, extra: CliEnv = {}): NodeJS.ProcessEnv {
  const merged: CliEnv = { ...env, ...extra };
  return merged as NodeJS.ProcessEnv;
}

/** This process's streams. `stdin` is read only when asked for: touching process.stdin opens it. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    get stdin() {
      return process.stdin;
    },
  };
}

/** Writes `line` and a newline, as console.log and console.error do with one string. */
export function writeLine(stream: NodeJS.WritableStream, line: string): void {
  stream.write(`${line}\n`);
}
