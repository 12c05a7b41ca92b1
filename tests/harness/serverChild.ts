import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild, type ChildHandle } from './childProcess';
import type { EventLoopUse } from './eventLoopUse';

/**
 * A Tandem server in a child process that can be SIGKILLed and restarted on the same data directory
 * and port (so socket.io clients reconnect to the same URL by themselves).
 */
export interface ServerChildOptions {
  providerBaseURL: string;
  dataDir?: string;
  /** postgres://… runs the server on that database (DATABASE_URL); default SQLite in dataDir. */
  databaseUrl?: string | undefined;
  env?: Record<string, string>;
  /** Extra node flags, e.g. ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] to profile the server. */
  nodeArgs?: string[];
  echoStderr?: boolean;
  /** How long a start may take before it counts as failed (default 30 s; a loaded machine needs more). */
  readyTimeoutMs?: number;
}

/** The STATS line of tests/harness/serverProcess.ts. */
export interface ServerStats {
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  eventLoopUtilization?: EventLoopUse;
}

export class ServerChild {
  readonly dataDir: string;
  private handle: ChildHandle<{ url: string; port: number }> | null = null;
  private port = 0;
  url = '';
  restarts = 0;

  private readonly ownsDataDir: boolean;

  constructor(private readonly options: ServerChildOptions) {
    this.ownsDataDir = options.dataDir === undefined;
    this.dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tandem-harness-'));
  }

  /** Kills the server if still running and deletes the data directory it created (not one it was given). */
  async dispose(): Promise<void> {
    if (this.alive) await this.crash();
    if (this.ownsDataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }

  async start(): Promise<void> {
    // Right after a SIGKILL the port can be briefly unavailable; retry a few times.
    let lastError: unknown;
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        this.handle = await startChild<{ url: string; port: number }>(new URL('./serverProcess.ts', import.meta.url), {
          env: {
            DATA_DIR: this.dataDir,
            PORT: String(this.port),
            PROVIDER_BASE_URL: this.options.providerBaseURL,
            // Empty selects SQLite (and keeps a DATABASE_URL of the test process from leaking in).
            DATABASE_URL: this.options.databaseUrl ?? '',
            ...this.options.env,
          },
          ...(this.options.echoStderr ? { echoStderr: true } : {}),
          ...(this.options.readyTimeoutMs ? { timeoutMs: this.options.readyTimeoutMs } : {}),
          ...(this.options.nodeArgs ? { nodeArgs: this.options.nodeArgs } : {}),
        });
        this.port = this.handle.ready.port;
        this.url = this.handle.ready.url;
        return;
      } catch (error) {
        lastError = error;
        if (!/EADDRINUSE/.test(String(error))) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw lastError;
  }

  get pid(): number | undefined {
    return this.handle?.child.pid;
  }

  get alive(): boolean {
    const c = this.handle?.child;
    return !!c && c.exitCode === null && c.signalCode === null;
  }

  /** SIGKILL: no shutdown code runs; whatever was in flight is cut. */
  async crash(): Promise<void> {
    await this.handle?.kill('SIGKILL');
  }

  async restart(): Promise<void> {
    this.restarts += 1;
    await this.start();
  }

  /** Graceful stop (SIGTERM → server.close()). */
  async stop(): Promise<void> {
    await this.handle?.kill('SIGTERM');
  }

  /** What the server printed on its last graceful stop (its event-loop delay and utilisation), or null. */
  lastStats(): ServerStats | null {
    return (this.handle?.lastStats() ?? null) as ServerStats | null;
  }

  stderrTail(): string {
    return this.handle?.stderrTail() ?? '';
  }
}
