import { spawn, type ChildProcess } from 'node:child_process';
import { nodeArgsFor } from '../../tests/support/testEntries';

/**
 * The harness's side of the orphan guard (reaperProcess.ts): tells it which processes and folders to clean up
 * if this process dies without stopping the cluster.
 */
export class Reaper {
  private readonly child: ChildProcess;

  constructor() {
    this.child = spawn(process.execPath, nodeArgsFor(new URL('./reaperProcess.ts', import.meta.url)), {
      detached: true, // its own process group: a Ctrl-C aimed at the harness does not reach it
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    this.child.unref();
    (this.child.stdin as unknown as { unref?: () => void }).unref?.();
    this.child.stdin!.on('error', () => {});
  }

  /** Signal `pid` (its process group if `group`) with `signal` should this process die first. */
  watch(pid: number | undefined, options: { group?: boolean; signal?: NodeJS.Signals } = {}): void {
    if (pid === undefined) return;
    this.send({ pid, group: options.group ?? false, signal: options.signal ?? 'SIGKILL' });
  }

  forget(pid: number | undefined): void {
    if (pid !== undefined) this.send({ forget: pid });
  }

  removeOnDeath(dir: string): void {
    this.send({ dir });
  }

  forgetDir(dir: string): void {
    this.send({ forgetDir: dir });
  }

  /** Ends the guard (after the cluster stopped and everything was forgotten). */
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.once('exit', () => resolve());
      this.child.stdin!.end();
    });
  }

  private send(message: unknown): void {
    this.child.stdin!.write(`${JSON.stringify(message)}\n`);
  }
}
