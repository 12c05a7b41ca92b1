/** The `sessions` row as both engines return it (is_pilot as 0/1 on both) and its mapping. */
import type { SessionStatus, Step } from '../../../common/session';
import type { SessionRow } from '../contract/store';

export interface SessionRaw {
  id: string;
  study_id: string;
  task_id: string;
  condition_id: string;
  step: Step;
  status: SessionStatus;
  is_pilot: number;
  consent_version: string | null;
  created_at: number;
  consented_at: number | null;
  submitted_at: number | null;
  ended_at: number | null;
  updated_at: number;
}

export const toSessionRow = (r: SessionRaw): SessionRow => ({
  id: r.id,
  studyId: r.study_id,
  taskId: r.task_id,
  conditionId: r.condition_id,
  step: r.step,
  status: r.status,
  isPilot: r.is_pilot === 1,
  consentVersion: r.consent_version,
  createdAt: r.created_at,
  consentedAt: r.consented_at,
  submittedAt: r.submitted_at,
  endedAt: r.ended_at,
  updatedAt: r.updated_at,
});
