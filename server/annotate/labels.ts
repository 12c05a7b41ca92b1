/** The annotation label sets (docs/annotation-guide.md defines each label). */
import { z } from 'zod';

export const GROUNDING_ACTS = [
  'acknowledgement', 'agreement', 'disagreement', 'clarification', 'followup', 'repair',
  'repeat', 'topic_switch', 'display', 'overresponse', 'response',
] as const;
export const FRICTION_LABELS = ['probing', 'assumption_reveal', 'reflective_pause', 'reinforcement', 'overspecification', 'none'] as const;

export const GroundingAct = z.enum(GROUNDING_ACTS);
export type GroundingAct = z.infer<typeof GroundingAct>;
export const FrictionLabel = z.enum(FRICTION_LABELS);
export type FrictionLabel = z.infer<typeof FrictionLabel>;
export const Speaker = z.enum(['user', 'agent']);
export type Speaker = z.infer<typeof Speaker>;
