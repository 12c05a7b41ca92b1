import type { IdentitiesRepo, IdentityRow } from '../../contract/store';
import { identityValues, toIdentityRow, type IdentityRaw } from '../../rows/identities';
import type { Runner } from '../connection';

export class PgIdentities implements IdentitiesRepo {
  constructor(private readonly db: Runner) {}

  async insert(row: IdentityRow): Promise<void> {
    await this.db.run(
      `INSERT INTO identities (session_id, study_id, platform, platform_user_id, platform_study_id, platform_session_id, url_params, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      identityValues(row),
    );
  }

  async findSessionId(studyId: string, platform: string, platformUserId: string): Promise<string | undefined> {
    const r = await this.db.one<{ session_id: string }>(
      'SELECT session_id FROM identities WHERE study_id = $1 AND platform = $2 AND platform_user_id = $3',
      [studyId, platform, platformUserId],
    );
    return r?.session_id;
  }

  async get(sessionId: string): Promise<IdentityRow | undefined> {
    const r = await this.db.one<IdentityRaw>('SELECT * FROM identities WHERE session_id = $1', [sessionId]);
    return r && toIdentityRow(r);
  }

  async countByPlatformUserId(platformUserId: string): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM identities WHERE platform_user_id = $1', [platformUserId]))!.n;
  }

  async listForPlatformUser(studyId: string, platform: string, platformUserId: string): Promise<IdentityRow[]> {
    const rows = await this.db.rows<IdentityRaw>(
      'SELECT * FROM identities WHERE study_id = $1 AND platform = $2 AND platform_user_id = $3 ORDER BY created_at, session_id',
      [studyId, platform, platformUserId],
    );
    return rows.map(toIdentityRow);
  }

  async countWithoutVisitId(studyId: string): Promise<number> {
    return (
      await this.db.one<{ n: number }>(
        'SELECT COUNT(*) AS n FROM identities WHERE study_id = $1 AND platform_user_id IS NOT NULL AND platform_session_id IS NULL',
        [studyId],
      )
    )!.n;
  }

  async setResumeCodeHash(sessionId: string, hash: string): Promise<void> {
    await this.db.run('UPDATE identities SET resume_code_hash = $1 WHERE session_id = $2', [hash, sessionId]);
  }

  async resumeCodeHash(sessionId: string): Promise<string | null | undefined> {
    const r = await this.db.one<{ resume_code_hash: string | null }>('SELECT resume_code_hash FROM identities WHERE session_id = $1', [sessionId]);
    return r === undefined ? undefined : r.resume_code_hash;
  }
}
