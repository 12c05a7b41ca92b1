import { z } from 'zod';
import { Slug } from './ids';

/** A post-task survey instrument, loaded from surveys/<id>.yaml. */

/**
 * Who sees an item in a teamwork-seat study (docs/teamwork.md): `team` only participants working with a team,
 * `alone` only those in the alone arm; absent = everyone. Outside a seat condition every item is shown.
 */
const seat = { seat: z.enum(['team', 'alone']).optional() };

const LikertScale = {
  /** Number of scale points (2–11); answers are integers 1..points. */
  points: z.number().int().min(2).max(11),
  /** Either two labels (the two ends of the scale) or exactly one label per point. */
  anchors: z.array(z.string().min(1)).min(2),
};

export const LikertItem = z
  .object({ id: Slug, kind: z.literal('likert'), prompt: z.string().min(1), ...LikertScale, required: z.boolean().default(true), ...seat })
  .strict();
export type LikertItem = z.infer<typeof LikertItem>;

export const FreeTextItem = z
  .object({
    id: Slug,
    kind: z.literal('text'),
    prompt: z.string().min(1),
    required: z.boolean().default(false),
    max_length: z.number().int().positive().max(20_000).default(2000),
    ...seat,
  })
  .strict();
export type FreeTextItem = z.infer<typeof FreeTextItem>;

/** A Likert-style item with one correct answer ("please select 'Agree'"); always required. */
export const AttentionCheckItem = z
  .object({ id: Slug, kind: z.literal('attention_check'), prompt: z.string().min(1), ...LikertScale, expected: z.number().int().min(1), ...seat })
  .strict();
export type AttentionCheckItem = z.infer<typeof AttentionCheckItem>;

export const SurveyItem = z.discriminatedUnion('kind', [LikertItem, FreeTextItem, AttentionCheckItem]);
export type SurveyItem = z.infer<typeof SurveyItem>;

/** A survey item as the participant's browser receives it: an attention check without its `expected` answer. */
export const PublicSurveyItem = z.discriminatedUnion('kind', [LikertItem, FreeTextItem, AttentionCheckItem.omit({ expected: true })]);
export type PublicSurveyItem = z.infer<typeof PublicSurveyItem>;

/** The item without what only the server may know (the attention check's answer, which it scores). */
export function publicSurveyItem(item: SurveyItem): PublicSurveyItem {
  if (item.kind !== 'attention_check') return item;
  const { expected: _expected, ...shown } = item;
  return shown;
}

/** The survey as a participant in this seat answers it (`seat` undefined: not a teamwork seat, every item). */
export function surveyForSeat<S extends { items: readonly SurveyItem[] }>(survey: S, seat: 'team' | 'alone' | undefined): S {
  if (seat === undefined) return survey;
  return { ...survey, items: survey.items.filter((i) => i.seat === undefined || i.seat === seat) };
}

/** The seat of a condition: with a team, alone, or none (not a teamwork-seat condition). */
export function seatOfCondition(condition: { teamwork?: { arm: string } | undefined }): 'team' | 'alone' | undefined {
  return condition.teamwork ? (condition.teamwork.arm === 'alone' ? 'alone' : 'team') : undefined;
}

export const Survey = z
  .object({
    title: z.string().min(1),
    intro: z.string().optional(),
    items: z.array(SurveyItem).min(1),
  })
  .strict()
  .superRefine((survey, ctx) => {
    const seen = new Set<string>();
    let checks = 0;
    survey.items.forEach((item, i) => {
      if (seen.has(item.id)) ctx.addIssue({ code: 'custom', path: ['items', i, 'id'], message: `duplicate item id "${item.id}"` });
      seen.add(item.id);
      if (item.kind === 'text') return;
      if (item.anchors.length !== 2 && item.anchors.length !== item.points)
        ctx.addIssue({ code: 'custom', path: ['items', i, 'anchors'], message: `needs 2 labels (the ends) or ${item.points} (one per point), got ${item.anchors.length}` });
      if (item.kind === 'attention_check') {
        checks += 1;
        if (item.expected > item.points)
          ctx.addIssue({ code: 'custom', path: ['items', i, 'expected'], message: `must be between 1 and points (${item.points})` });
      }
    });
    if (checks > 1) ctx.addIssue({ code: 'custom', path: ['items'], message: 'at most one attention_check item' });
  });
export type Survey = z.infer<typeof Survey>;

export type LoadedSurvey = Survey & { id: string };

/** Answers keyed by item id: integers 1..points for Likert/attention items, strings for text items. */
export const SurveyAnswers = z.record(z.string(), z.union([z.number().int(), z.string()]));
export type SurveyAnswers = z.infer<typeof SurveyAnswers>;

export interface SurveyAnswerProblem {
  field: string;
  message: string;
}

/**
 * Checks answers against the survey definition (shared by client and server): required items present,
 * Likert values integers in 1..points, text within max_length, no unknown items.
 * Returns the first problem or null.
 */
export function checkSurveyAnswers(survey: { items: readonly PublicSurveyItem[] }, answers: SurveyAnswers): SurveyAnswerProblem | null {
  const known = new Set(survey.items.map((i) => i.id));
  for (const key of Object.keys(answers)) {
    if (!known.has(key)) return { field: `answers.${key}`, message: `unknown survey item "${key}"` };
  }
  for (const item of survey.items) {
    const value = answers[item.id];
    const field = `answers.${item.id}`;
    const required = item.kind === 'attention_check' ? true : item.required;
    const empty = value === undefined || (typeof value === 'string' && value.trim() === '');
    if (empty) {
      if (required) return { field, message: `"${item.prompt}" needs an answer` };
      continue;
    }
    if (item.kind === 'text') {
      if (typeof value !== 'string') return { field, message: 'must be text' };
      if (value.length > item.max_length) return { field, message: `at most ${item.max_length} characters` };
    } else {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > item.points)
        return { field, message: `must be a whole number from 1 to ${item.points}` };
    }
  }
  return null;
}
