import { z } from 'zod';
import { InputError } from './inputError';
import { RaterName, type RatingsByRater } from './raterName';
import { readCsvTable } from './readCsvTable';

export const RATINGS_COLUMNS = ['session_id', 'rater', 'score'] as const;

const RatingRow = z.object({
  session_id: z.string().min(1, 'session_id is empty'),
  rater: RaterName,
  // empty = not rated (e.g. an unfilled template row); otherwise an integer on the 1–5 scale
  score: z.string().regex(/^([1-5])?$/, 'score must be an integer 1–5 or empty'),
});

/**
 * Reads a human ratings CSV (session_id, rater, score) into rater → session → score. Empty scores
 * are missing ratings. A second score for the same session and rater is an error naming both lines;
 * so is a session_id not in `knownSessions` (when given), which catches typos before they vanish
 * silently from pairwise-complete statistics.
 */
export function readRatingsCsv(file: string, knownSessions?: ReadonlySet<string>): RatingsByRater {
  const ratings: RatingsByRater = new Map();
  const seenAt = new Map<string, number>();
  for (const { line, value } of readCsvTable(file, RatingRow, RATINGS_COLUMNS)) {
    if (knownSessions && !knownSessions.has(value.session_id)) {
      throw new InputError(`session "${value.session_id}" is not in the dataset's sessions`, file, line, 'session_id');
    }
    const key = `${value.rater}\u0000${value.session_id}`;
    const earlier = seenAt.get(key);
    if (earlier !== undefined) {
      throw new InputError(`rater "${value.rater}" rated session "${value.session_id}" twice (also line ${earlier})`, file, line, 'rater');
    }
    seenAt.set(key, line);
    if (!ratings.has(value.rater)) ratings.set(value.rater, new Map());
    if (value.score !== '') ratings.get(value.rater)!.set(value.session_id, Number(value.score));
  }
  return ratings;
}
