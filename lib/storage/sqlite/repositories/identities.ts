import { cachedStatement, type SqliteDatabase } from '../database';
import type { IdentitiesRepo, IdentityRow } from '../../contract/store';
import { identityValues, toIdentityRow, type IdentityRaw } from '../../rows/identities';
import type { Sync } from '../sync';

export class IdentitiesRepository implements Sync<IdentitiesRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  insert(row: IdentityRow): void {
    this.db
      .prepare(
        `INSERT INTO identities (session_id, study_id, platform, platform_user_id, platform_study_id, platform_session_id, url_params, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(...identityValues(row));
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
