import type { IdentitiesRepo, IdentityRow } from '../../contract/store';
import { identityValues, toIdentityRow, type IdentityRaw } from '../../rows/identities';
import { IDENTITY_SQL } from '../../sql/participants';
import type { Runner } from '../connection';

export class PgIdentities implements IdentitiesRepo {
  constructor(private readonly db: Runner) {}

  async insert(row: IdentityRow, resumeCodeHash?: string): Promise<void> {
    await this.db.run(IDENTITY_SQL.insert.postgres, [...identityValues(row), resumeCodeHash ?? null]);
  }

  async findSessionId(studyId: string, platform: string, platformUserId: string): Promise<string | undefined> {
    return (await this.db.one<{ session_id: string }>(IDENTITY_SQL.findSessionId.postgres, [studyId, platform, platformUserId]))?.session_id;
  }

  async get(sessionId: string): Promise<IdentityRow | undefined> {
    const r = await this.db.one<IdentityRaw>(IDENTITY_SQL.get.postgres, [sessionId]);
    return r && toIdentityRow(r);
  }

  async countByPlatformUserId(platformUserId: string): Promise<number> {
    return (await this.db.one<{ n: number }>(IDENTITY_SQL.countByPlatformUserId.postgres, [platformUserId]))!.n;
  }

  async listForPlatformUser(studyId: string, platform: string, platformUserId: string): Promise<IdentityRow[]> {
    return (await this.db.rows<IdentityRaw>(IDENTITY_SQL.listForPlatformUser.postgres, [studyId, platform, platformUserId])).map(toIdentityRow);
  }

  async countWithoutVisitId(studyId: string): Promise<number> {
    return (await this.db.one<{ n: number }>(IDENTITY_SQL.countWithoutVisitId.postgres, [studyId]))!.n;
  }

  async setResumeCodeHash(sessionId: string, hash: string): Promise<void> {
    await this.db.run(IDENTITY_SQL.setResumeCodeHash.postgres, [hash, sessionId]);
  }

  async resumeCodeHash(sessionId: string): Promise<string | null | undefined> {
    const r = await this.db.one<{ resume_code_hash: string | null }>(IDENTITY_SQL.resumeCodeHash.postgres, [sessionId]);
    return r === undefined ? undefined : r.resume_code_hash;
  }
}
