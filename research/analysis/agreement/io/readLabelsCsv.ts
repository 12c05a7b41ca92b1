import { z } from 'zod';
import type { UtteranceLabels } from '../labelAgreement';
import { FRICTION_LABELS, GROUNDING_ACTS, type GroundingAct } from '../../../../common/labels';
import { InputError } from './inputError';
import { ANNOTATOR_RATER, RaterName } from './raterName';
import { readCsvTable } from './readCsvTable';

export const ANNOTATION_COLUMNS = ['session_id', 'turn', 'speaker', 'friction', 'grounding'] as const;
export const LABELS_COLUMNS = [...ANNOTATION_COLUMNS, 'rater'] as const;

/** A labelled utterance with where it came from, so cross-file conflicts can name the line. */
export interface LabelledUtterance extends UtteranceLabels {
  speaker: 'user' | 'agent';
  file: string;
  line: number;
}

/** rater → utterance key (see utteranceKey) → labels */
export type LabelsByRater = Map<string, Map<string, LabelledUtterance>>;

export function utteranceKey(sessionId: string, turn: number): string {
  return `${sessionId}#${turn}`;
}

const groundingLabel = new Set<string>(GROUNDING_ACTS);

const LabelRow = z.object({
  session_id: z.string().min(1, 'session_id is empty'),
  turn: z.string().regex(/^\d+$/, 'turn must be a non-negative integer'),
  speaker: z.enum(['user', 'agent'], { message: 'speaker must be user or agent' }),
  friction: z.union([z.literal(''), z.enum(FRICTION_LABELS)], {
    message: `friction must be one of ${FRICTION_LABELS.join(', ')} (or empty when the row is not labelled)`,
  }),
  grounding: z
    .string()
    .transform((s) => s.split(';').map((label) => label.trim()).filter((label) => label !== ''))
    .refine((labels) => labels.every((label) => groundingLabel.has(label)), {
      message: `grounding must be ;-joined labels from ${GROUNDING_ACTS.join(', ')}`,
    }),
});

/** Human labels: the annotations.csv columns plus `rater`. */
export function readLabelsCsv(file: string): LabelsByRater {
  return collect(file, LabelRow.extend({ rater: RaterName }), LABELS_COLUMNS, (row) => row.rater);
}

/** The LLM annotator's annotations.csv, as the rater "llm". */
export function readAnnotationsCsv(file: string): LabelsByRater {
  return collect(file, LabelRow, ANNOTATION_COLUMNS, () => ANNOTATOR_RATER);
}

function collect<S extends typeof LabelRow>(
  file: string,
  schema: S,
  columns: readonly string[],
  raterOf: (row: z.output<S>) => string,
): LabelsByRater {
  const byRater: LabelsByRater = new Map();
  for (const { line, value } of readCsvTable(file, schema, columns)) {
    const row = value as z.output<typeof LabelRow>;
    const grounding = row.grounding;
    // An unfilled template row (no friction, no grounding) is an unlabelled utterance, not "none".
    if (row.friction === '' && grounding.length === 0) continue;
    if (row.friction === '') {
      throw new InputError('friction is required once a row has grounding labels (use "none" for no friction)', file, line, 'friction');
    }
    const rater = raterOf(value);
    const key = utteranceKey(row.session_id, Number(row.turn));
    const labels = byRater.get(rater) ?? new Map<string, LabelledUtterance>();
    const earlier = labels.get(key);
    if (earlier) {
      throw new InputError(`rater "${rater}" labelled session "${row.session_id}" turn ${row.turn} twice (also line ${earlier.line})`, file, line, 'turn');
    }
    labels.set(key, {
      speaker: row.speaker,
      friction: row.friction,
      grounding: new Set(grounding as GroundingAct[]),
      file,
      line,
    });
    byRater.set(rater, labels);
  }
  return byRater;
}

/**
 * Every rater must agree on who spoke each utterance; a mismatch means the files refer to
 * different transcripts (or a shifted turn index) and would silently corrupt the statistics.
 */
export function checkSpeakersAgree(byRater: LabelsByRater): void {
  const first = new Map<string, LabelledUtterance>();
  for (const labels of byRater.values()) {
    for (const [key, utterance] of labels) {
      const seen = first.get(key);
      if (!seen) first.set(key, utterance);
      else if (seen.speaker !== utterance.speaker) {
        throw new InputError(
          `utterance ${key.replace('#', ' turn ')} has speaker "${utterance.speaker}" here but "${seen.speaker}" in ${seen.file} line ${seen.line}`,
          utterance.file,
          utterance.line,
          'speaker',
        );
      }
    }
  }
}
