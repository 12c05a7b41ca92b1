import { z } from 'zod';
import { countTokens } from '../../../common/tokens';
import { forEachJsonLine, parseDatasetRow } from '../input/jsonLines';

/** Buckets of assistant messages: the origins of messages.jsonl, plus replies a researcher discarded (no text). */
export const COST_ORIGINS = ['model', 'model_edited', 'wizard', 'fallback', 'discarded'] as const;
export type CostOrigin = (typeof COST_ORIGINS)[number];

export interface OriginCost {
  /** Assistant messages of this origin. */
  turns: number;
  /** Their tokens (o200k_base: the stored `tokens`, else the text counted). */
  tokens: number;
  /** Mean edit distance from the model's draft (messages with a draft only); null without any. */
  meanEditDistance: number | null;
  /** Mean wait of the participant for a reviewed reply (ms); null without any. */
  meanWaitMs: number | null;
}

const row = z.object({
  session_id: z.string().min(1),
  role: z.string().min(1),
  text: z.string().optional().nullable(),
  tokens: z.number().int().nonnegative().optional().nullable(),
  origin: z.enum(['model', 'model_edited', 'wizard', 'fallback']).optional().nullable(),
  assistant_mode: z.enum(['model', 'review', 'wizard']).optional().nullable(),
  edit_distance: z.number().int().nonnegative().optional().nullable(),
  wait_ms: z.number().nonnegative().optional().nullable(),
});

/**
 * The agent side of interaction cost split by where the words came from (issue 17): for each origin, the
 * assistant turns and tokens, with the mean edit distance and wait. A dataset exported before the provenance
 * columns existed has every assistant message in `model`. Bad rows name the file, line and field.
 * `include` keeps only some sessions (e.g. one condition's); default all.
 */
export function costByOrigin(path: string, include: (sessionId: string) => boolean = () => true): Record<CostOrigin, OriginCost> {
  const acc = Object.fromEntries(COST_ORIGINS.map((o) => [o, { turns: 0, tokens: 0, edits: [] as number[], waits: [] as number[] }])) as Record<
    CostOrigin,
    { turns: number; tokens: number; edits: number[]; waits: number[] }
  >;
  forEachJsonLine(path, (json, line, file) => {
      const m = parseDatasetRow(row, json, file, line);
      if ((m.role !== 'assistant' && m.role !== 'agent') || !include(m.session_id)) return;
      const origin: CostOrigin = m.origin ?? (m.assistant_mode && m.assistant_mode !== 'model' ? 'discarded' : 'model');
      const a = acc[origin];
      a.turns += 1;
      a.tokens += m.tokens ?? countTokens(m.text ?? '');
      if (m.edit_distance !== null && m.edit_distance !== undefined) a.edits.push(m.edit_distance);
      if (m.wait_ms !== null && m.wait_ms !== undefined) a.waits.push(m.wait_ms);
    });
  const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length);
  return Object.fromEntries(
    COST_ORIGINS.map((o) => [o, { turns: acc[o].turns, tokens: acc[o].tokens, meanEditDistance: mean(acc[o].edits), meanWaitMs: mean(acc[o].waits) }]),
  ) as Record<CostOrigin, OriginCost>;
}
