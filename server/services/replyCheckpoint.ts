import { wellFormed } from './textBoundary';
import type { Logger } from 'pino';
import { isStoreUnavailable, type ReplyProgressWrite, type Store } from '../../lib/storage';

/** How often a streaming reply's text is checkpointed: whichever of the two comes first. */
export interface CheckpointPolicy {
  /** A reply's checkpoint is due this many ms after its first delta, then after its last write (default 500; Infinity = no time trigger). */
  intervalMs: number;
  /** …or as soon as this many new characters arrived since its last write (default 400 ≈ 100 tokens; Infinity = none). */
  maxChars: number;
}

export const DEFAULT_CHECKPOINT_POLICY: CheckpointPolicy = { intervalMs: 500, maxChars: 400 };

/** Batches begin at least this far apart when replies reach maxChars between two of the timer's ticks. */
export const MIN_BATCH_GAP_MS = 100;

/** A reply whose checkpoint failed waits intervalMs × 2^failures before the next try, at most this long. */
export const MAX_CHECKPOINT_BACKOFF_MS = 10_000;

/** Checkpoint writes: rows written, store calls that wrote them, time in them, failed calls. */
export interface CheckpointStats {
  writes: number;
  batches: number;
  writeNs: bigint;
  failures: number;
}

const noStats = (): CheckpointStats => ({ writes: 0, batches: 0, writeNs: 0n, failures: 0 });

/** Process-wide counters, read by the overhead benchmark (tests/integration/checkpointOverhead.ts). */
export const checkpointStats: CheckpointStats = noStats();

/** One streaming reply's checkpoint (see ReplyCheckpoints.track). */
export interface ReplyCheckpoint {
  /** Call after the text grew (on the per-token path: cheap, never waits). */
  onText(): void;
  /**
   * No more writes (the reply is about to be stored, which removes the checkpoint). Resolves once a write of
   * this reply still in flight has landed, so it cannot re-create the row after the reply's transaction deleted it.
   */
  close(): Promise<void>;
}

class Tracked implements ReplyCheckpoint {
  savedChars = 0;
  /** performance.now() from which a write is due (null: no text yet). */
  dueAt: number | null = null;
  firstDeltaAt = 0;
  closed = false;
  /** Failed writes in a row, and performance.now() before which no write of this reply is tried again. */
  failures = 0;
  notBefore = 0;

  constructor(
    private readonly owner: ReplyCheckpoints,
    readonly reply: { replyId: string; sessionId: string; provider: string | null },
    readonly currentText: () => string,
  ) {}

  onText(): void {
    if (this.closed) return;
    if (this.dueAt === null) this.owner.started(this);
    else if (this.currentText().length - this.savedChars >= this.owner.policy.maxChars) this.owner.flushSoon();
  }

  close(): Promise<void> {
    return this.owner.closed(this);
  }
}

/**
 * Keeps the latest streamed text of every reply this process streams in the reply_progress table so that, if
 * the process dies mid-reply, start-up recovery can store what the participant had already seen. One timer
 * for all replies: every intervalMs / 4 the replies whose checkpoint is due (intervalMs after their first delta
 * or last write, or maxChars new characters) are written with one store call (`replyProgress.saveMany`: one
 * statement on PostgreSQL, one transaction on SQLite). A reply's first checkpoint writes its text so far and each
 * later one appends what streamed since (a part, migration 034), so its checkpoints write its text once. A checkpoint
 * lags the participant's screen by at most ~1.25 × intervalMs, a reply that ends within intervalMs costs no write, and
 * 200 concurrent replies cost at most 8 statements a second instead of 400 (BENCHMARKS.md, 2026-12-01), more batches
 * only when replies reach maxChars, at most one per MIN_BATCH_GAP_MS. At most one batch is in flight; a failed
 * batch is logged, never thrown. A batch refused for its content (not an outage) is written again row by row, so
 * one bad row never costs the others their checkpoint; a reply whose write failed backs off (intervalMs × 2^n, at
 * most MAX_CHECKPOINT_BACKOFF_MS), also when its unsaved text keeps growing.
 */
export class ReplyCheckpoints {
  /** This instance's counters (checkpointStats sums every instance of the process). */
  readonly stats: CheckpointStats = noStats();
  private readonly live = new Set<Tracked>();
  private timer: NodeJS.Timeout | undefined;
  private soon = false;
  /** performance.now() when the last batch began. */
  private lastBatchAt = Number.NEGATIVE_INFINITY;
  /** The batch on its way to the store, and the replies in it. */
  private inFlight: { done: Promise<void>; replies: Set<Tracked> } | undefined;

  constructor(
    private readonly store: Store,
    /** Server clock for the stored timestamps (injectable in tests); scheduling uses real time. */
    private readonly now: () => number,
    private readonly log: Logger,
    readonly policy: CheckpointPolicy = DEFAULT_CHECKPOINT_POLICY,
  ) {}

  /** Starts checkpointing one reply; `currentText` returns the whole text streamed so far. */
  track(reply: { replyId: string; sessionId: string; provider: string | null }, currentText: () => string): ReplyCheckpoint {
    return new Tracked(this, reply, currentText);
  }

  /** (Called by a tracked reply.) Its first delta: the clock of its first checkpoint starts. */
  started(r: Tracked): void {
    r.firstDeltaAt = this.now();
    r.dueAt = performance.now() + this.policy.intervalMs;
    this.live.add(r);
    if (this.timer === undefined && Number.isFinite(this.policy.intervalMs)) {
      this.timer = setInterval(() => this.flush(), Math.max(10, this.policy.intervalMs / 4));
      this.timer.unref();
    }
    if (r.currentText().length >= this.policy.maxChars) this.flushSoon();
  }

  /**
   * (Called by a tracked reply.) It reached maxChars unsaved characters: write the due ones once this tick's other
   * deltas are in, and no sooner than MIN_BATCH_GAP_MS after the last batch began. Replies cross maxChars one by one:
   * at 200 tokens/s each did every ~0.3 s, and a batch for each crossing made 70 streaming replies cost a commit every
   * few ms (most of what checkpoints cost; BENCHMARKS.md, 2026-12-06). Waiting for the gap lets them share one.
   */
  flushSoon(): void {
    if (this.soon) return;
    this.soon = true;
    const run = () => {
      this.soon = false;
      this.flush();
    };
    const wait = this.lastBatchAt + MIN_BATCH_GAP_MS - performance.now();
    if (wait > 0) setTimeout(run, wait).unref();
    else setImmediate(run);
  }

  /** (Called by a tracked reply's close().) */
  async closed(r: Tracked): Promise<void> {
    r.closed = true;
    this.live.delete(r);
    if (this.live.size === 0) this.stopTimer();
    if (this.inFlight?.replies.has(r)) await this.inFlight.done;
  }

  /** Stops the timer (server shutdown; replies still streaming are closed by their own runs). */
  stop(): void {
    this.stopTimer();
  }

  private stopTimer(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private flush(): void {
    if (this.inFlight || this.live.size === 0) return;
    const at = performance.now();
    // Each reply's text from its last checkpoint on (the whole text at its first): a checkpoint appends only what is new.
    const batch: Array<{ r: Tracked; text: string; to: number }> = [];
    for (const r of this.live) {
      const text = r.currentText();
      const unsaved = text.length - r.savedChars;
      if (!(unsaved > 0 && at >= r.notBefore && (at >= r.dueAt! || unsaved >= this.policy.maxChars))) continue;
      const to = endOfWholeCharacters(text);
      if (to > r.savedChars) batch.push({ r, text: text.slice(r.savedChars, to), to });
    }
    if (batch.length === 0) return;
    this.lastBatchAt = at;
    const updatedAt = this.now();
    // wellFormed: a lone surrogate from the model would stay a `\ud83d` escape in the batch's JSON, which PostgreSQL's
    // jsonb (the batch's cast) refuses; it becomes U+FFFD, one code unit for one, so the parts' offsets still add up.
    const rowOf = ({ r, text }: { r: Tracked; text: string }): ReplyProgressWrite => ({
      ...r.reply, text: wellFormed(text), textFrom: r.savedChars, firstDeltaAt: r.firstDeltaAt, updatedAt,
    });
    // Set before the write starts, also after a failure, so a broken database is not hammered on every tick.
    for (const { r } of batch) r.dueAt = at + this.policy.intervalMs;
    const started = process.hrtime.bigint();
    const succeeded = (part: typeof batch) => {
      for (const { r, to } of part) {
        r.savedChars = to;
        r.failures = 0;
        r.notBefore = 0;
      }
      for (const stats of [this.stats, checkpointStats]) {
        stats.writes += part.length;
        stats.batches++;
      }
    };
    const failed = (part: typeof batch, err: unknown) => {
      this.stats.failures++;
      checkpointStats.failures++;
      for (const { r } of part) {
        r.failures++;
        r.notBefore = r.dueAt = at + Math.min(this.policy.intervalMs * 2 ** r.failures, MAX_CHECKPOINT_BACKOFF_MS);
      }
      this.log.warn({ err, replies: part.length }, 'could not checkpoint the streaming replies');
    };
    const write = async (): Promise<void> => {
      try {
        await this.store.replyProgress.saveMany(batch.map(rowOf));
        succeeded(batch);
      } catch (err) {
        // An outage fails every row alike; a refusal of the content may be one row's: the others are written alone.
        if (batch.length === 1 || isStoreUnavailable(err)) return failed(batch, err);
        for (const one of batch) {
          await this.store.replyProgress.saveMany([rowOf(one)]).then(
            () => succeeded([one]),
            (e: unknown) => failed([one], e),
          );
        }
      }
    };
    const done = write().finally(() => {
      const ns = process.hrtime.bigint() - started;
      this.stats.writeNs += ns;
      checkpointStats.writeNs += ns;
      this.inFlight = undefined;
      // A reply that reached maxChars while this batch was out is not left for the timer (there may be none).
      const now = performance.now();
      for (const r of this.live) if (now >= r.notBefore && r.currentText().length - r.savedChars >= this.policy.maxChars) return this.flushSoon();
    });
    this.inFlight = { done, replies: new Set(batch.map((b) => b.r)) };
  }
}

/**
 * Where a checkpoint of `text` ends: its length, or one less when it ends in the first half of a surrogate pair whose
 * second half is still to stream. A part cut there would keep that half as U+FFFD for good; it goes with the next part.
 */
export function endOfWholeCharacters(text: string): number {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.length - 1 : text.length;
}
