/** The `identities` row as both engines return it (`url_params` is JSON TEXT on each), its mapping and insert values. */
import type { IdentityRow } from '../contract/store';

export interface IdentityRaw {
  session_id: string;
  study_id: string;
  platform: string;
  platform_user_id: string | null;
  platform_study_id: string | null;
  platform_session_id: string | null;
  url_params: string;
  created_at: number;
}

/** Maps a stored identities row to its typed form (URL parameters parsed). */
export const toIdentityRow = (r: IdentityRaw): IdentityRow => ({
  sessionId: r.session_id,
  studyId: r.study_id,
  platform: r.platform,
  platformUserId: r.platform_user_id,
  platformStudyId: r.platform_study_id,
  platformSessionId: r.platform_session_id,
  urlParams: JSON.parse(r.url_params) as Record<string, string>,
  createdAt: r.created_at,
});

/** Insert values in the column order session_id, study_id, platform, platform_user_id, platform_study_id, platform_session_id, url_params, created_at. */
export const identityValues = (row: IdentityRow) =>
  [row.sessionId, row.studyId, row.platform, row.platformUserId, row.platformStudyId, row.platformSessionId, JSON.stringify(row.urlParams), row.createdAt] as const;
