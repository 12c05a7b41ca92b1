import { stringify } from 'csv-stringify/sync';
import type { Utterance } from './readMessagesJsonl';
import { formulaSafeCell } from '../../../exports/spreadsheetCells';

/**
 * Ratings template for human raters: one row per session with an empty score, in the columns that
 * readRatingsCsv reads back (extra columns such as `task` are ignored on import).
 */
export function ratingsTemplate(sessions: readonly { session_id: string; task?: string }[], rater = ''): string {
  return stringify(
    sessions.map((s) => ({ session_id: s.session_id, task: s.task ?? '', rater, score: '' })),
    { header: true, columns: ['session_id', 'task', 'rater', 'score'] },
  );
}

/**
 * Annotation template: one row per utterance (session_id, turn, speaker, text) with empty friction
 * and grounding, readable by readLabelsCsv once filled in (`text` is ignored on import; a formula-leading
 * text gets a leading quote, so a rater's spreadsheet shows it as text).
 */
export function labelsTemplate(
  utterances: readonly (Omit<Utterance, 'text'> & { text?: string })[],
  rater = '',
): string {
  return stringify(
    utterances.map((u) => ({ session_id: u.session_id, turn: u.turn, speaker: u.speaker, text: formulaSafeCell(u.text ?? '', false), friction: '', grounding: '', rater })),
    { header: true, columns: ['session_id', 'turn', 'speaker', 'text', 'friction', 'grounding', 'rater'] },
  );
}
