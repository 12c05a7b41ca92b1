import type { Logger } from 'pino';

/**
 * A job run every `intervalMs` (0 = never by itself; runOnce still works): runs never overlap, a failure is
 * logged and the next period tries again, the interval is unref'd (never keeps the process alive) and
 * stop() waits for a run in progress. Subclasses implement run(). Cluster-wide exclusion is the job's own
 * business (store.locks.tryRun).
 */
export abstract class PeriodicJob<T> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<T> | null = null;

  constructor(
    private readonly jobName: string,
    private readonly intervalMs: number,
    /** What runOnce resolves with when run() fails. */
    private readonly onFailure: T,
    protected readonly log: Logger,
  ) {}

  /** One pass of the job. */
  protected abstract run(): Promise<T>;

  start(): void {
    if (this.timer || this.intervalMs <= 0) return;
    this.timer = setInterval(() => void this.runOnce(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops the interval and waits for a run in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One run now, or the run already in progress. */
  runOnce(): Promise<T> {
    this.running ??= this.run()
      .catch((err: unknown) => {
        this.log.warn({ err, job: this.jobName }, `${this.jobName} failed`);
        return this.onFailure;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }
}

/** A PeriodicJob running `fn`, for an owner that is not itself the job. */
export function periodicJob<T>(jobName: string, intervalMs: number, fn: () => Promise<T>, onFailure: T, log: Logger): PeriodicJob<T> {
  return new (class extends PeriodicJob<T> {
    protected run(): Promise<T> {
      return fn();
    }
  })(jobName, intervalMs, onFailure, log);
}
