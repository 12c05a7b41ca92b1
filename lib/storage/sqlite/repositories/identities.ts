import type { IdentitiesRepo, IdentityRow } from '../../contract/store';
import { identityValues, toIdentityRow, type IdentityRaw } from '../../rows/identities';
import { IDENTITY_SQL } from '../../sql/participants';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

export class IdentitiesRepository extends SqliteRepository implements Sync<IdentitiesRepo> {
  insert(row: IdentityRow, resumeCodeHash?: string): void {
    this.q.run(IDENTITY_SQL.insert, ...identityValues(row), resumeCodeHash ?? null);
  }

  /** The session a platform user already has in this study, if any. */
  findSessionId(studyId: string, platform: string, platformUserId: string): string | undefined {
    return this.q.one<{ session_id: string }>(IDENTITY_SQL.findSessionId, studyId, platform, platformUserId)?.session_id;
  }

  get(sessionId: string): IdentityRow | undefined {
    const r = this.q.one<IdentityRaw>(IDENTITY_SQL.get, sessionId);
    return r && toIdentityRow(r);
  }

  countByPlatformUserId(platformUserId: string): number {
    return this.q.one<{ n: number }>(IDENTITY_SQL.countByPlatformUserId, platformUserId)!.n;
  }

  listForPlatformUser(studyId: string, platform: string, platformUserId: string): IdentityRow[] {
    return this.q.rows<IdentityRaw>(IDENTITY_SQL.listForPlatformUser, studyId, platform, platformUserId).map(toIdentityRow);
  }

  countWithoutVisitId(studyId: string): number {
    return this.q.one<{ n: number }>(IDENTITY_SQL.countWithoutVisitId, studyId)!.n;
  }

  setResumeCodeHash(sessionId: string, hash: string): void {
    this.q.run(IDENTITY_SQL.setResumeCodeHash, hash, sessionId);
  }

  resumeCodeHash(sessionId: string): string | null | undefined {
    const r = this.q.one<{ resume_code_hash: string | null }>(IDENTITY_SQL.resumeCodeHash, sessionId);
    return r === undefined ? undefined : r.resume_code_hash;
  }
}
