import { cachedStatement, type SqliteDatabase } from '../../database';
import type { IdentitiesRepo, IdentityRow } from '../../storeInterface';
import type { Sync } from '../sync';

/** An identities row as SQLite returns it. */
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

export class IdentitiesRepository implements Sync<IdentitiesRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  insert(row: IdentityRow): void {
    this.db
      .prepare(
        `INSERT INTO identities (session_id, study_id, platform, platform_user_id, platform_study_id, platform_session_id, url_params, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        row.sessionId,
        row.studyId,
        row.platform,
        row.platformUserId,
        row.platformStudyId,
        row.platformSessionId,
        JSON.stringify(row.urlParams),
        row.createdAt,
      );
  }

  /** The session a platform user already has in this study, if any. */
  findSessionId(studyId: string, platform: string, platformUserId: string): string | undefined {
    const r = this.db
      .prepare('SELECT session_id FROM identities WHERE study_id = ? AND platform = ? AND platform_user_id = ?')
      .get(studyId, platform, platformUserId) as { session_id: string } | undefined;
    return r?.session_id;
  }

  get(sessionId: string): IdentityRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM identities WHERE session_id = ?').get(sessionId) as IdentityRaw | undefined;
    return r && toIdentityRow(r);
  }

  countByPlatformUserId(platformUserId: string): number {
    return (cachedStatement(this.db, 'SELECT COUNT(*) AS n FROM identities WHERE platform_user_id = ?').get(platformUserId) as { n: number }).n;
  }

  listForPlatformUser(studyId: string, platform: string, platformUserId: string): IdentityRow[] {
    const rows = cachedStatement(
      this.db,
      'SELECT * FROM identities WHERE study_id = ? AND platform = ? AND platform_user_id = ? ORDER BY created_at, session_id',
    ).all(studyId, platform, platformUserId) as IdentityRaw[];
    return rows.map(toIdentityRow);
  }

  countWithoutVisitId(studyId: string): number {
    return (
      cachedStatement(this.db, 'SELECT COUNT(*) AS n FROM identities WHERE study_id = ? AND platform_user_id IS NOT NULL AND platform_session_id IS NULL').get(
        studyId,
      ) as { n: number }
    ).n;
  }

  setResumeCodeHash(sessionId: string, hash: string): void {
    cachedStatement(this.db, 'UPDATE identities SET resume_code_hash = ? WHERE session_id = ?').run(hash, sessionId);
  }

  resumeCodeHash(sessionId: string): string | null | undefined {
    const r = cachedStatement(this.db, 'SELECT resume_code_hash FROM identities WHERE session_id = ?').get(sessionId) as
      | { resume_code_hash: string | null }
      | undefined;
    return r === undefined ? undefined : r.resume_code_hash;
  }
}
