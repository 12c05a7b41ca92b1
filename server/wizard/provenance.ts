import { distance } from 'fastest-levenshtein';
import { createTwoFilesPatch } from 'diff';
import type { ReplyOrigin } from '../../common/assistantMode';
import type { ReviewMode } from '../../lib/storage';

/** How the researcher answered: the draft as it is, the draft changed, or words of their own. */
export type ResearcherAction = 'approve' | 'edit' | 'replace';

/**
 * The origin of a reply the researcher sent. In `review`, approving (or "editing" without a change) keeps the
 * model's words; an edit that changes them is `model_edited`; a replacement is `wizard` whatever its likeness
 * to the draft. In `wizard` mode the researcher writes every reply.
 */
export function originOf(mode: ReviewMode, action: ResearcherAction, draft: string | null, finalText: string): ReplyOrigin {
  if (mode === 'wizard' || action === 'replace' || draft === null) return 'wizard';
  return finalText === draft ? 'model' : 'model_edited';
}

/**
 * Edit distance (Levenshtein over UTF-16 code units, fastest-levenshtein) and a unified diff from the model's
 * draft to the text sent. Both null without a draft (nothing to compare with).
 */
export function draftChanges(draft: string | null, finalText: string): { editDistance: number | null; diff: string | null } {
  if (draft === null) return { editDistance: null, diff: null };
  return { editDistance: distance(draft, finalText), diff: createTwoFilesPatch('model draft', 'sent', draft, finalText, undefined, undefined, { context: 3 }) };
}
