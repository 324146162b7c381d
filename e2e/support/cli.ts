// A command of scripts/ called in this process, as its tests call it: its `main` with the arguments and
// environment given and its streams captured, so a case costs the command's work, not a tsx start-up.
// A test spawns the script itself only where the process is the subject (one smoke test per command,
// a terminal, signals).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { childEnv, type CliEnv, type CliMain } from "@/lib/background/cli-io";

/** What a command run left: its exit status and everything it wrote, as text. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A stream that keeps what is written to it; `text()` decodes it once (UTF-8 split across writes stays whole). */
function capture(isTTY: boolean): Writable & { isTTY?: boolean; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, encoding, done) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, encoding));
      done();
    },
  }) as Writable & { isTTY?: boolean; text: () => string };
  if (isTTY) stream.isTTY = true;
  stream.text = () => Buffer.concat(chunks).toString("utf8");
  return stream;
}

/**
 * Runs `main(argv, env, io)` in this process with stdout and stderr captured (neither a terminal) and
 * `stdin` as the whole standard input when given (ended after it; none otherwise). Resolves with the exit
 * status and the text written; rejects with what `main` throws (an unexpected error: the process would
 * have printed it and exited 1 or 2).
 */
export async function runMain(main: CliMain, argv: string[], env: CliEnv, options: { stdin?: string } = {}): Promise<CliRun> {
  const stdout = capture(false);
  const stderr = capture(false);
  const stdin = options.stdin === undefined ? undefined : Readable.from(options.stdin ? [Buffer.from(options.stdin)] : []);
  const code = await main(argv, env, { stdout, stderr, stdin });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/**
 * Runs `node --import tsx <script> ...argv` as npm runs the command, with `env` as its whole environment,
 * and resolves with its exit status (null when a signal ended it) and output, once it has exited. For the
 * one smoke test per command that proves the file runs its main when executed directly.
 */
export function spawnCommand(script: string, argv: string[], env: CliEnv, options: { stdin?: string; timeoutMs?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...argv], { env: childEnv(env), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? "");
  });
}
