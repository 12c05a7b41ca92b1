import type { Logger } from 'pino';
import type { AdminJobOutcome, LeaseOwner, Store } from '../../lib/storage';

/**
 * Writes a running job's progress to its row at most every 500 ms (the socket gets every step) and refreshes
 * the row every heartbeatMs while the job is quiet (a long judge call), so other nodes see it alive.
 */
export class JobRowWriter {
  private last = { done: 0, total: 0, message: 'starting' };
  private writtenAt = 0;
  private writing: Promise<unknown> = Promise.resolve();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    private readonly id: string,
    private readonly owner: LeaseOwner,
    private readonly now: () => number,
    heartbeatMs: number,
    private readonly log: Logger,
  ) {
    this.heartbeat = setInterval(() => this.write(), heartbeatMs);
    this.heartbeat.unref();
  }

  progress(done: number, total: number, message: string): void {
    this.last = { done, total, message };
    if (this.now() - this.writtenAt >= 500) this.write();
  }

  async finish(outcome: AdminJobOutcome): Promise<void> {
    clearInterval(this.heartbeat);
    await this.writing;
    try {
      if (!(await this.store.adminJobs.finish(this.id, outcome, this.now())))
        this.log.warn({ jobId: this.id }, 'dashboard job ended after it was marked abandoned');
    } catch (err) {
      this.log.error({ err, jobId: this.id }, 'could not store the end of a dashboard job');
    }
  }

  private write(): void {
    this.writtenAt = this.now();
    const p = this.last;
    // One write at a time, in order; a failed one is logged (the next heartbeat tries again).
    this.writing = this.writing
      .then(() => this.store.adminJobs.progress(this.id, this.owner, p, this.now()))
      .catch((err: unknown) => this.log.warn({ err, jobId: this.id }, 'could not store dashboard job progress'));
  }
}
