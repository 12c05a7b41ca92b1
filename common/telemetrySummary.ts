import { INTERVAL_BINS, type TelemetryArea, type TelemetryBatch } from './telemetryBatch';

/**
 * The per-session integrity telemetry, accumulated batch by batch (server/services/telemetry.ts stores it
 * in session_telemetry). Counters only: no text, no key identities, no raw user agent.
 */
export interface AreaTelemetry {
  pasteCount: number;
  pastedChars: number;
  typedChars: number;
  keyEvents: number;
  intervals: { count: number; sumMs: number; sumSqMs: number; bins: number[] };
  pauses: number;
}

export type DeviceClass = 'desktop' | 'mobile' | 'tablet' | 'unknown';
export type BrowserFamily = 'chrome' | 'edge' | 'firefox' | 'safari' | 'opera' | 'samsung' | 'other' | 'unknown';

export interface TelemetrySummary {
  version: 1;
  chat: AreaTelemetry;
  artifact: AreaTelemetry;
  /** Periods the page was hidden or the window had lost focus. */
  awayCount: number;
  awayMs: number;
  /** Of those, periods during which the page was hidden (not only blurred). */
  hiddenCount: number;
  /** User-agent class of the browser that sent the latest batch (the raw string is never kept). */
  device: DeviceClass;
  browser: BrowserFamily;
}

export function emptyArea(): AreaTelemetry {
  return { pasteCount: 0, pastedChars: 0, typedChars: 0, keyEvents: 0, intervals: { count: 0, sumMs: 0, sumSqMs: 0, bins: new Array<number>(INTERVAL_BINS).fill(0) }, pauses: 0 };
}

export function emptySummary(): TelemetrySummary {
  return { version: 1, chat: emptyArea(), artifact: emptyArea(), awayCount: 0, awayMs: 0, hiddenCount: 0, device: 'unknown', browser: 'unknown' };
}

/** A paste target is "chat" or an artifact field id. */
export const areaOfTarget = (target: string): TelemetryArea => (target === 'chat' ? 'chat' : 'artifact');

/** The summary after one more batch (a new object; the input is not changed). */
export function mergeBatch(summary: TelemetrySummary, batch: TelemetryBatch, ua: { device: DeviceClass; browser: BrowserFamily }): TelemetrySummary {
  const next: TelemetrySummary = structuredClone(summary);
  for (const p of batch.pastes) {
    const area = next[areaOfTarget(p.target)];
    area.pasteCount++;
    area.pastedChars += p.chars;
  }
  for (const a of batch.away) {
    next.awayMs += a.ms;
    if (a.continued) continue;
    next.awayCount++;
    if (a.hidden) next.hiddenCount++;
  }
  for (const t of batch.typing) {
    const area = next[t.area];
    area.typedChars += t.typedChars;
    area.keyEvents += t.keyEvents;
    area.pauses += t.pauses;
    area.intervals.count += t.intervals.count;
    area.intervals.sumMs += t.intervals.sumMs;
    area.intervals.sumSqMs += t.intervals.sumSqMs;
    t.intervals.bins.forEach((n, i) => (area.intervals.bins[i] = (area.intervals.bins[i] ?? 0) + n));
  }
  if (ua.device !== 'unknown' || ua.browser !== 'unknown') {
    next.device = ua.device;
    next.browser = ua.browser;
  }
  return next;
}
