import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { nodeArgsFor } from '../support/testEntries';

/**
 * Runs a TypeScript entry file as a child Node process (tsx loaded in-process with --import, so the
 * pid we hold is the process that serves: SIGKILL really kills the server, no wrapper survives) and
 * waits for the line `READY <json>` on its stdout.
 */
export interface ChildHandle<Ready> {
  readonly child: ChildProcess;
  readonly ready: Ready;
  /** Resolves with the exit code/signal once the process has gone. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Everything the child wrote to stderr (last 20 kB), for error messages. */
  stderrTail(): string;
  /** The last `STATS <json>` line the child printed, parsed (null if none). */
  lastStats(): unknown;
}

export const READY_PREFIX = 'READY ';

export async function startChild<Ready>(
  entry: string | URL,
  options: { env?: Record<string, string>; args?: string[]; nodeArgs?: string[]; timeoutMs?: number; echoStderr?: boolean } = {},
): Promise<ChildHandle<Ready>> {
  const file = entry instanceof URL ? fileURLToPath(entry) : entry;
  const child = spawn(process.execPath, [...nodeArgsFor(file, options.nodeArgs ?? []), ...(options.args ?? [])], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-20_000);
    if (options.echoStderr) process.stderr.write(chunk);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const lines = createInterface({ input: child.stdout! });
  let stats: unknown = null;
  lines.on('line', (line) => {
    if (line.startsWith('STATS ')) stats = JSON.parse(line.slice('STATS '.length)) as unknown;
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child ${file} not ready within ${options.timeoutMs ?? 30_000} ms\n${stderr}`));
    }, options.timeoutMs ?? 30_000);
    lines.on('line', (line) => {
      if (line.startsWith(READY_PREFIX)) {
        clearTimeout(timer);
        resolve(JSON.parse(line.slice(READY_PREFIX.length)) as Ready);
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`child ${file} exited before ready (code ${code}, signal ${signal})\n${stderr}`));
    });
  });
  return {
    child,
    ready,
    exited,
    stderrTail: () => stderr,
    lastStats: () => stats,
    kill: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** Called by an entry file once it serves: prints the READY line the parent waits for. */
export function announceReady(info: unknown): void {
  process.stdout.write(`${READY_PREFIX}${JSON.stringify(info)}\n`);
}

/** CPU seconds (user + system) a live process has used so far, from /proc (Linux); null elsewhere. */
export function cpuSecondsOf(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the ")" that ends the command name: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return ticks / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}
