import { z } from 'zod';

/** Names of the model raters; humans may not use them. */
export const JUDGE_RATER = 'judge';
export const ANNOTATOR_RATER = 'llm';

/** A rater's pseudonym: short, no identities (never an email), safe in file names and tables. */
export const RaterName = z
  .string()
  .min(1, 'rater is empty')
  .max(64, 'rater name longer than 64 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'rater must be a pseudonym of letters, digits, _ . - (no spaces or @)')
  .refine((name) => name !== JUDGE_RATER && name !== ANNOTATOR_RATER, {
    message: `rater names "${JUDGE_RATER}" and "${ANNOTATOR_RATER}" are reserved for the LLM judge and annotator`,
  });

/** One score per map: rater → (session_id → score). */
export type RatingsByRater = Map<string, Map<string, number>>;
