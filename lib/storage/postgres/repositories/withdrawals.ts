import type { WithdrawalRow, WithdrawalsRepo } from '../../contract/store';
import { toTombstoneSet, withdrawalValues } from '../../rows/withdrawals';
import type { Runner } from '../connection';

/**
 * Withdrawal of a participant (migration 020): finds their sessions by platform id, deletes them
 * (every science table cascades from sessions), and keeps a tombstone (keyed HMAC, no personal data).
 */
export class PgWithdrawals implements WithdrawalsRepo {
  constructor(private readonly db: Runner) {}

  async findSessionIds(studyId: string, platformUserId: string): Promise<string[]> {
    const rows = await this.db.rows<{ session_id: string }>(
      'SELECT session_id FROM identities WHERE study_id = $1 AND platform_user_id = $2 ORDER BY created_at, session_id',
      [studyId, platformUserId.trim()],
    );
    return rows.map((r) => r.session_id);
  }

  async uploadPaths(sessionIds: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (const id of sessionIds) {
      const rows = await this.db.rows<{ storage_path: string }>('SELECT storage_path FROM uploads WHERE session_id = $1 ORDER BY created_at, id', [id]);
      out.push(...rows.map((r) => r.storage_path));
    }
    return out;
  }

  async deleteSessions(sessionIds: readonly string[]): Promise<number> {
    let n = 0;
    for (const id of sessionIds) n += await this.db.run('DELETE FROM sessions WHERE id = $1', [id]);
    return n;
  }

  async recordTombstone(w: WithdrawalRow): Promise<void> {
    await this.db.run(
      `INSERT INTO withdrawals (study_id, tombstone, withdrawn_at, deleted_sessions, actor) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (study_id, tombstone) DO UPDATE SET deleted_sessions = withdrawals.deleted_sessions + excluded.deleted_sessions,
         withdrawn_at = excluded.withdrawn_at, actor = excluded.actor`,
      withdrawalValues(w),
    );
  }

  async tombstones(studyId: string): Promise<Set<string>> {
    const rows = await this.db.rows<{ tombstone: string }>('SELECT tombstone FROM withdrawals WHERE study_id = $1', [studyId]);
    return toTombstoneSet(rows);
  }

  async isWithdrawn(studyId: string, tombstone: string): Promise<boolean> {
    return (await this.db.one('SELECT 1 FROM withdrawals WHERE study_id = $1 AND tombstone = $2', [studyId, tombstone])) !== undefined;
  }

  async count(studyId: string): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM withdrawals WHERE study_id = $1', [studyId]))!.n;
  }
}
