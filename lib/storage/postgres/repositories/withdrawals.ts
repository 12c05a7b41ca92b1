import type { WithdrawalRow, WithdrawalsRepo } from '../../contract/store';
import { toTombstoneSet, withdrawalValues } from '../../rows/withdrawals';
import { WITHDRAWAL_SQL } from '../../sql/admin';
import { GROUP_DOC_SQL, GROUP_MEMBER_SQL, GROUP_SQL, GROUP_WITHDRAWAL_COUNT_SQL, GROUP_WITHDRAWAL_SQL } from '../../sql/groups';
import { planGroupWithdrawal } from '../../groupWithdrawal';
import { toGroup, toGroupDocUpdate, toGroupMember, type RawGroup, type RawGroupDocUpdate, type RawGroupMember } from '../../rows/groups';
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

  /** Takes each session out of its group (../../groupWithdrawal.ts), then deletes it. Call inside a transaction. */
  async deleteSessions(sessionIds: readonly string[], now = Date.now()): Promise<number> {
    if (sessionIds.length > 1) {
      await this.db.rows(WITHDRAWAL_SQL.lockSessionsForDelete.postgres, [sessionIds]);
      await this.db.rows(WITHDRAWAL_SQL.lockBalanceCountsForDelete.postgres, [sessionIds]);
    }
    let n = 0;
    for (const id of sessionIds) {
      await this.withdrawFromGroups(id, now);
      n += await this.db.run(WITHDRAWAL_SQL.deleteSession.postgres, [id]);
    }
    return n;
  }

  private async withdrawFromGroups(sessionId: string, now: number): Promise<void> {
    const db = this.db;
    const groups = await db.rows<{ group_id: string }>(GROUP_WITHDRAWAL_SQL.groupsOfSession.postgres, [sessionId, sessionId, sessionId, sessionId]);
    for (const { group_id: groupId } of groups) {
      await db.one(GROUP_WITHDRAWAL_SQL.lockGroup.postgres, [groupId]);
      const member = await db.one<RawGroupMember>(GROUP_MEMBER_SQL.bySession.postgres, [sessionId]);
      const plan = planGroupWithdrawal(
        sessionId,
        {
          group: toGroup((await db.one<RawGroup>(GROUP_SQL.get.postgres, [groupId]))!),
          member: member && member.group_id === groupId ? toGroupMember(member) : undefined,
          updates: (await db.rows<RawGroupDocUpdate>(GROUP_DOC_SQL.list.postgres, [groupId])).map(toGroupDocUpdate),
          messages: (await db.one<{ n: number }>(GROUP_WITHDRAWAL_COUNT_SQL.messages.postgres, [groupId, sessionId]))!.n,
          events: (await db.one<{ n: number }>(GROUP_WITHDRAWAL_COUNT_SQL.events.postgres, [groupId, sessionId]))!.n,
        },
        now,
      );
      for (const step of plan) await db.run(step.q.postgres, step.params as never);
    }
    await db.run(GROUP_WITHDRAWAL_SQL.deleteLobbyEvents.postgres, [sessionId]);
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
