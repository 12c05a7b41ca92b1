import type { Logger } from 'pino';

/**
 * A job run every `intervalMs` (0 = never by itself; runOnce still works): runs never overlap, a failure is
 * logged and the next period tries again, the interval is unref'd (never keeps the process alive) and
 * stop() waits for a run in progress. Cluster-wide exclusion is the job's own business (store.locks.tryRun).
 */
export class PeriodicJob<T> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<T> | null = null;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly job: () => Promise<T>,
    private readonly onFailure: T,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.timer || this.intervalMs <= 0) return;
    this.timer = setInterval(() => void this.runOnce(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One run now, or the run already in progress. */
  runOnce(): Promise<T> {
    this.running ??= this.job()
      .catch((err: unknown) => {
        this.log.warn({ err, job: this.name }, `${this.name} failed`);
        return this.onFailure;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }
}
