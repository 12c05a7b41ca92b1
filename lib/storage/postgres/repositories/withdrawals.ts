import type { WithdrawalRow, WithdrawalsRepo } from '../../contract/store';
import { toTombstoneSet, withdrawalValues } from '../../rows/withdrawals';
import { WITHDRAWAL_SQL } from '../../sql/admin';
import type { Runner } from '../connection';

/**
 * Withdrawal of a participant (migration 020): finds their sessions by platform id, deletes them
 * (every science table cascades from sessions), and keeps a tombstone (keyed HMAC, no personal data).
 */
export class PgWithdrawals implements WithdrawalsRepo {
  constructor(private readonly db: Runner) {}

  async findSessionIds(studyId: string, platformUserId: string): Promise<string[]> {
    return (await this.db.rows<{ session_id: string }>(WITHDRAWAL_SQL.findSessionIds.postgres, [studyId, platformUserId.trim()])).map((r) => r.session_id);
  }

  async uploadPaths(sessionIds: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (const id of sessionIds) out.push(...(await this.db.rows<{ storage_path: string }>(WITHDRAWAL_SQL.uploadPaths.postgres, [id])).map((r) => r.storage_path));
    return out;
  }

  async deleteSessions(sessionIds: readonly string[]): Promise<number> {
    let n = 0;
    for (const id of sessionIds) n += await this.db.run(WITHDRAWAL_SQL.deleteSession.postgres, [id]);
    return n;
  }

  async recordTombstone(w: WithdrawalRow): Promise<void> {
    await this.db.run(WITHDRAWAL_SQL.recordTombstone.postgres, withdrawalValues(w));
  }

  async tombstones(studyId: string): Promise<Set<string>> {
    return toTombstoneSet(await this.db.rows<{ tombstone: string }>(WITHDRAWAL_SQL.tombstones.postgres, [studyId]));
  }

  async isWithdrawn(studyId: string, tombstone: string): Promise<boolean> {
    return (await this.db.one(WITHDRAWAL_SQL.isWithdrawn.postgres, [studyId, tombstone])) !== undefined;
  }

  async count(studyId: string): Promise<number> {
    return (await this.db.one<{ n: number }>(WITHDRAWAL_SQL.count.postgres, [studyId]))!.n;
  }
}
