/** The `studies` row as both engines return it (the same column types on each) and its mapping. */
import type { StudyStatus } from '../../../common/http';
import type { StudyRow } from '../contract/store';

export interface StudyRaw {
  id: string;
  title: string;
  status: StudyStatus;
  definition_hash: string;
  created_at: number;
  updated_at: number;
}

export const toStudyRow = (r: StudyRaw): StudyRow => ({
  id: r.id,
  title: r.title,
  status: r.status,
  definitionHash: r.definition_hash,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
