import { z } from 'zod';
import { ClientTs } from './ids';

/**
 * `telemetry:batch`: the browser's integrity telemetry, sent at most every few seconds (and when the page
 * is hidden or left), never per keystroke. A batch holds what happened since the previous one:
 *  - pastes: where (chat or an artifact field id) and how many characters — never the pasted text;
 *  - away periods: how long the page was hidden or the window lost focus;
 *  - typing: per area (chat / artifact) the number of characters typed and a summary of the intervals
 *    between input events (count, sum, sum of squares, a fixed histogram) — never which keys.
 * Every list and number is bounded here; the server also bounds the batches per session (telemetry.ts).
 */

/** Upper bounds of one batch (the client flushes early when a list fills). */
export const BATCH_MAX_PASTES = 50;
export const BATCH_MAX_AWAY = 50;
/** One away period is capped at a day; one batch covers at most a day of typing. */
const MAX_MS = 86_400_000;

/**
 * Histogram of inter-key intervals: bin i holds intervals in [EDGES[i], EDGES[i+1]) ms; the last bin is
 * [1000, 2000). Longer gaps are pauses (counted apart, left out of the cadence statistics).
 */
export const INTERVAL_BIN_EDGES_MS = [0, 25, 50, 75, 100, 125, 150, 200, 250, 300, 400, 500, 750, 1000, 2000] as const;
export const INTERVAL_BINS = INTERVAL_BIN_EDGES_MS.length - 1;
export const PAUSE_MS: number = INTERVAL_BIN_EDGES_MS[INTERVAL_BIN_EDGES_MS.length - 1]!;

export const TelemetryArea = z.enum(['chat', 'artifact']);
export type TelemetryArea = z.infer<typeof TelemetryArea>;

const count = z.number().int().nonnegative().max(10_000_000);

export const TypingSummary = z
  .object({
    area: TelemetryArea,
    /** Characters inserted by typing (inputType insertText / insertLineBreak / finished IME compositions). */
    typedChars: count,
    /** Input events from the keyboard (insertions and deletions). */
    keyEvents: count,
    /** Intervals between consecutive keyboard input events shorter than PAUSE_MS. */
    intervals: z
      .object({
        count,
        sumMs: z.number().nonnegative().max(1e12),
        sumSqMs: z.number().nonnegative().max(1e15),
        bins: z.array(count).length(INTERVAL_BINS, `must have ${INTERVAL_BINS} bins`),
      })
      .strict(),
    /** Gaps of PAUSE_MS or more between keyboard input events. */
    pauses: count,
  })
  .strict();
export type TypingSummary = z.infer<typeof TypingSummary>;

export const TelemetryBatch = z
  .object({
    clientTs: ClientTs,
    pastes: z
      .array(
        z
          .object({
            /** "chat" or the artifact field id. */
            target: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be "chat" or a field id'),
            chars: z.number().int().nonnegative().max(1_000_000),
            at: ClientTs,
          })
          .strict(),
      )
      .max(BATCH_MAX_PASTES, `at most ${BATCH_MAX_PASTES} per batch`),
    away: z
      .array(
        z
          .object({
            /** When the period began (browser clock). */
            at: ClientTs,
            ms: z.number().int().nonnegative().max(MAX_MS),
            /** True when the page was hidden (tab switched, minimised) at some point, false for a window blur only. */
            hidden: z.boolean(),
            /** The rest of a period already partly sent (the page was left and came back): adds time, not a period. */
            continued: z.boolean().optional(),
          })
          .strict(),
      )
      .max(BATCH_MAX_AWAY, `at most ${BATCH_MAX_AWAY} per batch`),
    typing: z.array(TypingSummary).max(2, 'at most one entry per area'),
  })
  .strict();
export type TelemetryBatch = z.infer<typeof TelemetryBatch>;

export const TelemetryBatchAck = z.object({ batches: z.number().int(), remaining: z.number().int() });
export type TelemetryBatchAck = z.infer<typeof TelemetryBatchAck>;
