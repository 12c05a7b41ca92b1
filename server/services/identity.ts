import type { UrlParams } from '../../common/http';

/** MTurk's value of assignmentId while a worker previews a HIT (no session may be created). */
export const MTURK_PREVIEW_ASSIGNMENT = 'ASSIGNMENT_ID_NOT_AVAILABLE';

export interface PlatformIdentity {
  platform: 'prolific' | 'mturk' | 'label' | 'anonymous';
  userId: string | null;
  studyId: string | null;
  sessionId: string | null;
}

const clean = (v: string | undefined): string | null => {
  const t = v?.trim();
  return t ? t : null;
};

/**
 * Reads the platform identity from a study link's query:
 * Prolific (PROLIFIC_PID, STUDY_ID, SESSION_ID), MTurk (workerId, hitId, assignmentId),
 * a researcher-chosen participant_label, or none (anonymous: every join is a new session).
 */
export function identityFromParams(params: UrlParams): PlatformIdentity {
  const prolific = clean(params.PROLIFIC_PID);
  if (prolific) return { platform: 'prolific', userId: prolific, studyId: clean(params.STUDY_ID), sessionId: clean(params.SESSION_ID) };
  const worker = clean(params.workerId);
  if (worker) return { platform: 'mturk', userId: worker, studyId: clean(params.hitId), sessionId: clean(params.assignmentId) };
  const label = clean(params.participant_label);
  if (label) return { platform: 'label', userId: label, studyId: null, sessionId: null };
  return { platform: 'anonymous', userId: null, studyId: null, sessionId: null };
}

export function isMturkPreview(params: UrlParams): boolean {
  return params.assignmentId === MTURK_PREVIEW_ASSIGNMENT;
}
