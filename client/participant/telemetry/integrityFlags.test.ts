import { describe, expect, it } from 'vitest';
import { deriveIntegrity, finalTextChars, histogramMedian, LONG_AWAY_S, MIN_TEXT_CHARS, raisedFlags } from '../../../common/integrityFlags';
import { TelemetryBatch } from '../../../common/telemetryBatch';
import { emptySummary, mergeBatch, type TelemetrySummary } from '../../../common/telemetrySummary';
import { IntegrityRecorder } from './integrityRecorder';

const UA = { device: 'desktop', browser: 'chrome' } as const;

/** A summary built the way the product builds it: recorder → batch (validated) → merge. */
function summaryFrom(feed: (r: IntegrityRecorder, clock: { t: number }) => void): TelemetrySummary {
  const clock = { t: 1_000_000 };
  const recorder = new IntegrityRecorder(() => clock.t);
  feed(recorder, clock);
  const body = recorder.take(true);
  if (!body) return emptySummary();
  return mergeBatch(emptySummary(), TelemetryBatch.parse({ clientTs: clock.t, ...body }), UA);
}

describe('integrity flags', () => {
  it('are all empty (null) without telemetry, not false', () => {
    expect(deriveIntegrity(null, { chat: 400, artifact: 400 })).toBeNull();
  });

  it('raises mostly_pasted at half of the final text pasted, not below', () => {
    const pasted = (chars: number) => summaryFrom((r) => r.paste('answer', chars));
    expect(deriveIntegrity(pasted(100), { chat: 0, artifact: 200 })!.flags.mostly_pasted).toBe(true);
    expect(deriveIntegrity(pasted(99), { chat: 0, artifact: 200 })!.flags.mostly_pasted).toBe(false);
    // a paste larger than the final text (later deleted) caps the share at 1
    const over = deriveIntegrity(pasted(500), { chat: 0, artifact: 200 })!;
    expect(over.pastedShare).toBe(1);
    expect(over.artifactPastedShare).toBe(1);
    // too little text to judge: no flag
    expect(deriveIntegrity(pasted(MIN_TEXT_CHARS - 1), { chat: 0, artifact: MIN_TEXT_CHARS - 1 })!.flags.mostly_pasted).toBe(false);
  });

  it('splits pasted shares by area: chat pastes count for the total, not the answer', () => {
    const m = deriveIntegrity(summaryFrom((r) => r.paste('chat', 60)), { chat: 100, artifact: 100 })!;
    expect(m.pastedShare).toBe(0.3);
    expect(m.artifactPastedShare).toBe(0);
    expect(m.pasteCount).toBe(1);
  });

  it('raises no_typing when fewer than a tenth of the final characters were typed', () => {
    const typed = (n: number) =>
      summaryFrom((r) => {
        for (let i = 0; i < n; i++) r.keyInput('artifact', 1, i * 100);
      });
    expect(deriveIntegrity(typed(19), { chat: 0, artifact: 200 })!.flags.no_typing).toBe(true);
    expect(deriveIntegrity(typed(20), { chat: 0, artifact: 200 })!.flags.no_typing).toBe(false);
    expect(deriveIntegrity(typed(0), { chat: 0, artifact: 10 })!.flags.no_typing).toBe(false); // short text
    expect(deriveIntegrity(typed(20), { chat: 0, artifact: 200 })!.typedRatio).toBe(0.1);
  });

  it('raises long_away at 60 s away in total, across periods', () => {
    const away = (...periods: number[]) =>
      summaryFrom((r, clock) => {
        for (const ms of periods) {
          r.setHidden(true);
          clock.t += ms;
          r.setHidden(false);
          clock.t += 5_000;
        }
      });
    const twice = deriveIntegrity(away(30_000, 30_000), { chat: 0, artifact: 0 })!;
    expect(twice.awayCount).toBe(2);
    expect(twice.awayS).toBe(LONG_AWAY_S);
    expect(twice.flags.long_away).toBe(true);
    expect(deriveIntegrity(away(30_000, 29_900), { chat: 0, artifact: 0 })!.flags.long_away).toBe(false);
    expect(raisedFlags(twice)).toEqual(['long_away']); // no text: the text flags stay down
  });

  it('counts a blur and a hidden page overlapping as one period away', () => {
    const s = summaryFrom((r, clock) => {
      r.setBlurred(true);
      clock.t += 2_000;
      r.setHidden(true);
      clock.t += 3_000;
      r.setHidden(false);
      clock.t += 1_000;
      r.setBlurred(false);
    });
    expect(s.awayCount).toBe(1);
    expect(s.hiddenCount).toBe(1);
    expect(s.awayMs).toBe(6_000);
  });

  it('counts a period split by leaving the page once, adding the time of both parts', () => {
    const clock = { t: 0 };
    const r = new IntegrityRecorder(() => clock.t);
    r.setHidden(true);
    clock.t += 4_000;
    const first = r.take(true)!;
    clock.t += 6_000;
    r.setHidden(false);
    const second = r.take()!;
    const merged = [first, second].reduce((s, body) => mergeBatch(s, TelemetryBatch.parse({ clientTs: 1, ...body }), UA), emptySummary());
    expect(merged.awayCount).toBe(1);
    expect(merged.awayMs).toBe(10_000);
  });

  it('counts a period once when the page is left the moment it is hidden (nothing of it sent yet)', () => {
    const clock = { t: 0 };
    const r = new IntegrityRecorder(() => clock.t);
    r.setHidden(true);
    const atHiding = r.take(true); // the flush on visibilitychange: 0 ms away so far
    clock.t += 65_000;
    r.setHidden(false);
    const back = r.take()!;
    const merged = [atHiding, back].filter((b) => b !== null).reduce((s, body) => mergeBatch(s, TelemetryBatch.parse({ clientTs: 1, ...body }), UA), emptySummary());
    expect(merged.awayCount).toBe(1);
    expect(merged.awayMs).toBe(65_000);
  });

  it('summarises inter-key intervals like numpy, leaving pauses of 2 s or more out', () => {
    // python3 -c "import numpy as np; x=np.array([80,120,95,300,150,60,1500]); print(x.mean(), x.std(ddof=1), np.median(x))"
    // → 329.2857142857143 522.3219678466895 120.0
    const gaps = [80, 120, 95, 300, 150, 60, 1500];
    const s = summaryFrom((r) => {
      let t = 0;
      r.keyInput('chat', 1, t);
      for (const g of gaps) r.keyInput('chat', 1, (t += g));
      r.keyInput('chat', 0, (t += 2_500)); // a pause, then a deletion
    });
    expect(s.chat.pauses).toBe(1);
    expect(s.chat.keyEvents).toBe(gaps.length + 2);
    expect(s.chat.typedChars).toBe(gaps.length + 1);
    const m = deriveIntegrity(s, { chat: 100, artifact: 0 })!;
    expect(m.keyIntervalMeanMs).toBeCloseTo(329.3, 1);
    expect(m.keyIntervalSdMs).toBeCloseTo(522.3, 1);
    // histogram median: the exact median (120) lies in bin [100, 125); linear interpolation gives 100 + 0.5 × 25
    expect(m.keyIntervalMedianMs).toBe(112.5);
    expect(histogramMedian(new Array<number>(14).fill(0))).toBeNull();
  });

  it('measures the final text without image fields', () => {
    expect(finalTextChars(8, { answer: 'abcd', plot: 'upload-1' }, new Set(['upload-1']))).toEqual({ chat: 8, artifact: 4 });
    expect(finalTextChars(0, null, new Set())).toEqual({ chat: 0, artifact: 0 });
  });
});
