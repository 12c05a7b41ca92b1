import { INTERVAL_BIN_EDGES_MS } from './telemetryBatch';
import type { AreaTelemetry, TelemetrySummary } from './telemetrySummary';

/**
 * THE integrity flags and their thresholds (documented in docs/data-protection.md and the codebook; the
 * export, the dashboard and the tests all use this module). They screen for sessions worth a closer look
 * (e.g. a participant who let another LLM write the answer); none proves anything on its own.
 *
 *  mostly_pasted  final text ≥ MIN_TEXT_CHARS and pasted characters ≥ MOSTLY_PASTED_SHARE of it
 *  no_typing      final text ≥ MIN_TEXT_CHARS and typed characters < NO_TYPING_RATIO of it
 *  long_away      page hidden / window unfocused for LONG_AWAY_S seconds or more in total
 *
 * "Final text" = the characters of the participant's sent chat messages plus the text fields of the
 * last submitted artifact version (none: 0), in the export and the dashboard alike. Without telemetry
 * (an old session, a client that sent none) every measure and flag is empty (null), not false.
 */
export const MIN_TEXT_CHARS = 50;
export const MOSTLY_PASTED_SHARE = 0.5;
export const NO_TYPING_RATIO = 0.1;
export const LONG_AWAY_S = 60;

export const INTEGRITY_FLAGS = ['mostly_pasted', 'no_typing', 'long_away'] as const;
export type IntegrityFlag = (typeof INTEGRITY_FLAGS)[number];

export interface FinalTextChars {
  chat: number;
  artifact: number;
}

export interface IntegrityMeasures {
  pasteCount: number;
  pastedChars: number;
  /** pasted / final characters, capped at 1 (a paste later deleted still counts as pasted). */
  pastedShare: number | null;
  artifactPastedShare: number | null;
  finalChars: number;
  typedChars: number;
  typedRatio: number | null;
  keyIntervalMedianMs: number | null;
  keyIntervalMeanMs: number | null;
  keyIntervalSdMs: number | null;
  awayCount: number;
  awayS: number;
  device: string;
  browser: string;
  flags: Record<IntegrityFlag, boolean>;
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;
const share = (part: number, whole: number): number | null => (whole > 0 ? round(Math.min(1, part / whole), 3) : null);

/** Median of the pooled histogram, linearly interpolated inside its bin (exact to the bin width). */
export function histogramMedian(bins: readonly number[]): number | null {
  const n = bins.reduce((a, b) => a + b, 0);
  if (n === 0) return null;
  const half = n / 2;
  let below = 0;
  for (let i = 0; i < bins.length; i++) {
    const inBin = bins[i] ?? 0;
    if (inBin > 0 && below + inBin >= half) {
      const lo = INTERVAL_BIN_EDGES_MS[i]!;
      const hi = INTERVAL_BIN_EDGES_MS[i + 1]!;
      return round(lo + ((half - below) / inBin) * (hi - lo), 1);
    }
    below += inBin;
  }
  return null;
}

function pooledIntervals(areas: readonly AreaTelemetry[]) {
  const count = areas.reduce((a, x) => a + x.intervals.count, 0);
  const sum = areas.reduce((a, x) => a + x.intervals.sumMs, 0);
  const sumSq = areas.reduce((a, x) => a + x.intervals.sumSqMs, 0);
  const bins = areas[0]!.intervals.bins.map((_, i) => areas.reduce((a, x) => a + (x.intervals.bins[i] ?? 0), 0));
  return { count, sum, sumSq, bins };
}

/** Measures and flags of one session; null when it sent no telemetry. */
export function deriveIntegrity(summary: TelemetrySummary | null, text: FinalTextChars): IntegrityMeasures | null {
  if (!summary) return null;
  const areas = [summary.chat, summary.artifact];
  const finalChars = text.chat + text.artifact;
  const pastedChars = summary.chat.pastedChars + summary.artifact.pastedChars;
  const typedChars = summary.chat.typedChars + summary.artifact.typedChars;
  const iv = pooledIntervals(areas);
  const mean = iv.count > 0 ? iv.sum / iv.count : null;
  const variance = iv.count > 1 ? Math.max(0, (iv.sumSq - (iv.sum * iv.sum) / iv.count) / (iv.count - 1)) : null;
  const pastedShare = share(pastedChars, finalChars);
  const typedRatio = finalChars > 0 ? round(typedChars / finalChars, 3) : null;
  const awayS = round(summary.awayMs / 1000, 1);
  const enoughText = finalChars >= MIN_TEXT_CHARS;
  return {
    pasteCount: summary.chat.pasteCount + summary.artifact.pasteCount,
    pastedChars,
    pastedShare,
    artifactPastedShare: share(summary.artifact.pastedChars, text.artifact),
    finalChars,
    typedChars,
    typedRatio,
    keyIntervalMedianMs: histogramMedian(iv.bins),
    keyIntervalMeanMs: mean === null ? null : round(mean, 1),
    keyIntervalSdMs: variance === null ? null : round(Math.sqrt(variance), 1),
    awayCount: summary.awayCount,
    awayS,
    device: summary.device,
    browser: summary.browser,
    flags: {
      mostly_pasted: enoughText && pastedShare !== null && pastedShare >= MOSTLY_PASTED_SHARE,
      no_typing: enoughText && typedChars < NO_TYPING_RATIO * finalChars,
      long_away: awayS >= LONG_AWAY_S,
    },
  };
}

/** The raised flags, in INTEGRITY_FLAGS order. */
export const raisedFlags = (m: IntegrityMeasures): IntegrityFlag[] => INTEGRITY_FLAGS.filter((f) => m.flags[f]);

/**
 * Final text characters: `userMessageChars` (the summed length of the sent chat messages) plus the artifact's
 * text fields (values that are upload ids are images, not text).
 */
export function finalTextChars(userMessageChars: number, artifactFields: Record<string, string> | null, uploadIds: ReadonlySet<string>): FinalTextChars {
  const chat = userMessageChars;
  let artifact = 0;
  for (const v of Object.values(artifactFields ?? {})) if (!uploadIds.has(v)) artifact += v.length;
  return { chat, artifact };
}
