/** The judge's and the raters' quality scale: integers 1..5, fixed even when a category is unused. */
export const LIKERT_CATEGORIES = [1, 2, 3, 4, 5] as const;

/** Grounding acts (multi-label, `;`-joined in annotations.csv); see docs/annotation-guide.md. */
export const GROUNDING_LABELS = [
  'acknowledgement',
  'agreement',
  'disagreement',
  'clarification',
  'followup',
  'repair',
  'repeat',
  'topic_switch',
  'display',
  'overresponse',
  'response',
] as const;

/** Positive friction (exactly one label per utterance; `none` when there is none). */
export const FRICTION_LABELS = [
  'probing',
  'assumption_reveal',
  'reflective_pause',
  'reinforcement',
  'overspecification',
  'none',
] as const;

export type GroundingLabel = (typeof GROUNDING_LABELS)[number];
export type FrictionLabel = (typeof FRICTION_LABELS)[number];
