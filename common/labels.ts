/**
 * The annotation label sets (docs/annotation-guide.md defines each label): grounding acts
 * (multi-label, `;`-joined in annotations.csv) and positive friction (exactly one label per
 * utterance; `none` when there is none). One definition for the annotator (research/annotate) and
 * the agreement statistics (analysis/agreement); browser-safe (zod only).
 */
import { z } from 'zod';

export const GROUNDING_ACTS = [
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
export const GroundingAct = z.enum(GROUNDING_ACTS);
export type GroundingAct = z.infer<typeof GroundingAct>;

export const FRICTION_LABELS = ['probing', 'assumption_reveal', 'reflective_pause', 'reinforcement', 'overspecification', 'none'] as const;
export const FrictionLabel = z.enum(FRICTION_LABELS);
export type FrictionLabel = z.infer<typeof FrictionLabel>;

/** Who spoke an utterance: the participant (`user`) or the assistant (`agent`). */
export const SPEAKERS = ['user', 'agent'] as const;
export const Speaker = z.enum(SPEAKERS);
export type Speaker = z.infer<typeof Speaker>;
