import type { Logger } from 'pino';
import type { Store } from '../db/store';

/** How often a streaming reply's text is checkpointed: whichever of the two comes first. */
export interface CheckpointPolicy {
  /** At most one write per this many ms while text keeps arriving (default 500; Infinity = no time trigger). */
  intervalMs: number;
  /** …unless this many new characters arrived since the last write (default 400 ≈ 100 tokens; Infinity = none). */
  maxChars: number;
}

export const DEFAULT_CHECKPOINT_POLICY: CheckpointPolicy = { intervalMs: 500, maxChars: 400 };

/** Process-wide counters, read by the overhead benchmark (server/integration/checkpointOverhead.ts). */
export const checkpointStats = { writes: 0, writeNs: 0n, failures: 0 };

/**
 * Keeps the latest streamed text of one reply in the reply_progress table so that, if the process dies
 * mid-reply, start-up recovery can store what the participant had already seen. Deltas are coalesced: one
 * single-row upsert `intervalMs` after the first delta and then at most every `intervalMs` while text keeps
 * arriving (a trailing timer writes the tail even when the stream pauses), or earlier when `maxChars` new
 * characters arrived. So the checkpoint lags the participant's screen by at most ~intervalMs, and a reply
 * that ends within intervalMs costs no write. Never throws: a failed write is logged and the stream goes on.
 * The row is deleted by the transaction that stores the finished reply; await close() before that.
 */
export class ReplyCheckpointer {
  private savedChars = 0;
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  private firstDeltaAt: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The checkpoint write on its way to the store, if any. */
  private inFlight: Promise<void> | undefined;
  /** Text arrived that should be written once the write in flight lands. */
  private again = false;
  /** Writes made for this reply (tests, benchmark). */
  writes = 0;

  constructor(
    private readonly store: Store,
    private readonly reply: { replyId: string; sessionId: string; provider: string | null },
    /** The whole text streamed so far. */
    private readonly currentText: () => string,
    /** Server clock for the stored timestamps (injectable in tests); throttling uses real time. */
    private readonly now: () => number,
    private readonly log: Logger,
    private readonly policy: CheckpointPolicy = DEFAULT_CHECKPOINT_POLICY,
  ) {}

  /** Call after the text grew. */
  onText(): void {
    if (this.closed) return;
    if (this.firstDeltaAt === null) {
      // The clock starts at the first delta: a reply that ends within intervalMs costs no write at all.
      this.firstDeltaAt = this.now();
      this.lastWriteAt = performance.now();
    }
    if (this.currentText().length - this.savedChars >= this.policy.maxChars) {
      this.write();
      return;
    }
    // A write is already scheduled: nothing else to decide (this runs for every token, so stay cheap).
    if (this.timer !== undefined) return;
    const sinceWrite = performance.now() - this.lastWriteAt;
    if (sinceWrite >= this.policy.intervalMs) {
      this.write();
      return;
    }
    // A non-finite interval turns the time trigger off (setTimeout would fire at once).
    if (Number.isFinite(this.policy.intervalMs)) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.write();
      }, this.policy.intervalMs - sinceWrite);
      this.timer.unref();
    }
  }

  /**
   * No more writes (the reply is about to be stored, which removes the checkpoint). Resolves once a write
   * still in flight has landed, so it cannot re-create the row after the reply's transaction deleted it.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }

  /**
   * Starts a checkpoint write (asynchronous: the caller, on the per-token path, never waits for it). At most
   * one write per reply is in flight; text that arrives meanwhile is written when it lands (`again`).
   */
  private write(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed) return;
    if (this.inFlight) {
      this.again = true;
      return;
    }
    const text = this.currentText();
    if (text.length === this.savedChars) return;
    const started = process.hrtime.bigint();
    // Set before the write starts, also after a failure, so a broken database is not hammered on every delta.
    this.lastWriteAt = performance.now();
    this.inFlight = this.store.replyProgress
      .save({
        replyId: this.reply.replyId,
        sessionId: this.reply.sessionId,
        text,
        provider: this.reply.provider,
        firstDeltaAt: this.firstDeltaAt ?? this.now(),
        updatedAt: this.now(),
      })
      .then(
        () => {
          this.savedChars = text.length;
          this.writes++;
          checkpointStats.writes++;
        },
        (err: unknown) => {
          checkpointStats.failures++;
          this.log.warn({ err, replyId: this.reply.replyId }, 'could not checkpoint the streaming reply');
        },
      )
      .finally(() => {
        checkpointStats.writeNs += process.hrtime.bigint() - started;
        this.inFlight = undefined;
        if (this.again) {
          this.again = false;
          this.onText();
        }
      });
  }
}
