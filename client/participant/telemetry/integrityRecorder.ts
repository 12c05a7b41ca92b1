import {
  BATCH_MAX_AWAY,
  BATCH_MAX_PASTES,
  INTERVAL_BIN_EDGES_MS,
  INTERVAL_BINS,
  PAUSE_MS,
  type TelemetryArea,
  type TelemetryBatch,
  type TypingSummary,
} from '../../../common/telemetryBatch';

export type BatchBody = Omit<TelemetryBatch, 'clientTs'>;

function emptyTyping(area: TelemetryArea): TypingSummary {
  return { area, typedChars: 0, keyEvents: 0, intervals: { count: 0, sumMs: 0, sumSqMs: 0, bins: new Array<number>(INTERVAL_BINS).fill(0) }, pauses: 0 };
}

function binOf(ms: number): number {
  for (let i = INTERVAL_BINS - 1; i >= 0; i--) if (ms >= INTERVAL_BIN_EDGES_MS[i]!) return i;
  return 0;
}

/**
 * Accumulates integrity telemetry between two batches, in memory and in O(1) per input event (no DOM, no
 * network: useIntegrityTelemetry.ts feeds it and sends what `take()` returns). Keeps counts and interval
 * sums only, never text or which key was pressed.
 */
export class IntegrityRecorder {
  private pastes: BatchBody['pastes'] = [];
  private away: BatchBody['away'] = [];
  private typing = new Map<TelemetryArea, TypingSummary>();
  /** Time (performance clock) of the previous keyboard input event, per area. */
  private lastKey = new Map<TelemetryArea, number>();
  private hidden: boolean;
  private blurred = false;
  /** The away period in progress: its start (wall clock) and whether the page was hidden during it. */
  private awaySince: { at: number; hidden: boolean; continued: boolean } | null = null;

  constructor(
    private readonly now: () => number = Date.now,
    initiallyHidden = false,
  ) {
    this.hidden = initiallyHidden;
    if (initiallyHidden) this.awaySince = { at: now(), hidden: true, continued: false };
  }

  paste(target: string, chars: number): void {
    this.pastes.push({ target, chars, at: this.now() });
  }

  /** A keyboard input event in `area` at `t` (ms, performance clock) that inserted `insertedChars` characters (0 for a deletion). */
  keyInput(area: TelemetryArea, insertedChars: number, t: number): void {
    let typing = this.typing.get(area);
    if (!typing) this.typing.set(area, (typing = emptyTyping(area)));
    typing.typedChars += insertedChars;
    typing.keyEvents++;
    const last = this.lastKey.get(area);
    this.lastKey.set(area, t);
    if (last === undefined) return;
    const gap = Math.max(0, t - last);
    if (gap >= PAUSE_MS) {
      typing.pauses++;
      return;
    }
    typing.intervals.count++;
    typing.intervals.sumMs += gap;
    typing.intervals.sumSqMs += gap * gap;
    typing.intervals.bins[binOf(gap)]!++;
  }

  /** Characters that arrived without per-key events (a finished IME composition). */
  composed(area: TelemetryArea, chars: number): void {
    let typing = this.typing.get(area);
    if (!typing) this.typing.set(area, (typing = emptyTyping(area)));
    typing.typedChars += chars;
  }

  setHidden(hidden: boolean): void {
    this.hidden = hidden;
    this.updateAway();
  }

  setBlurred(blurred: boolean): void {
    this.blurred = blurred;
    this.updateAway();
  }

  /** True when a list is full and the batch should go now rather than at the next tick. */
  get full(): boolean {
    return this.pastes.length >= BATCH_MAX_PASTES || this.away.length >= BATCH_MAX_AWAY;
  }

  /**
   * What happened since the last call (and resets), or null when nothing did. With `final` (the page is
   * being left) an away period still in progress is split: the part so far goes into this batch, so a page
   * closed while away is counted; the rest, if the page comes back, is sent marked `continued`.
   */
  take(final = false): BatchBody | null {
    if (final && this.awaySince) {
      const at = this.now();
      // The rest is a continuation only if a part of this period was actually sent.
      const continued = this.closeAway(at) || this.awaySince.continued;
      this.awaySince = { at, hidden: this.hidden, continued };
    }
    const typing = [...this.typing.values()];
    if (this.pastes.length === 0 && this.away.length === 0 && typing.length === 0) return null;
    const body: BatchBody = { pastes: this.pastes, away: this.away, typing };
    this.pastes = [];
    this.away = [];
    this.typing = new Map();
    return body;
  }

  private updateAway(): void {
    const away = this.hidden || this.blurred;
    if (away && !this.awaySince) this.awaySince = { at: this.now(), hidden: this.hidden, continued: false };
    else if (away && this.awaySince && this.hidden) this.awaySince.hidden = true;
    else if (!away && this.awaySince) {
      this.closeAway(this.now());
      this.awaySince = null;
    }
  }

  /** Ends the away period in progress at `end`; true when it went into the batch (a zero-length one does not). */
  private closeAway(end: number): boolean {
    const since = this.awaySince!;
    const ms = Math.min(86_400_000, Math.max(0, Math.round(end - since.at)));
    if (ms === 0 || this.away.length >= BATCH_MAX_AWAY) return false;
    this.away.push(since.continued ? { at: since.at, ms, hidden: since.hidden, continued: true } : { at: since.at, ms, hidden: since.hidden });
    return true;
  }
}
