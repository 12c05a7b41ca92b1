import type { Runner } from '../connection';
import type {
  GroupDocUpdateRow,
  GroupEventRow,
  GroupMemberRow,
  GroupMemberStatus,
  GroupMessageRow,
  GroupRow,
  GroupsRepo,
  LobbyEntryRow,
  LobbyOutcome,
  NewLobbyEntry,
} from '../../contract/groups';
import * as rows from '../../rows/groups';
import { GROUP_DOC_SQL, GROUP_EVENT_SQL, GROUP_MEMBER_SQL, GROUP_MESSAGE_SQL, GROUP_SQL, LOBBY_LOCK_NAMESPACE, LOBBY_SQL } from '../../sql/groups';

/**
 * Group sessions on PostgreSQL (contract in ../../contract/groups.ts; SQL in ../../sql/groups.ts). A matching decision
 * holds a transaction-scoped advisory lock on its lobby, so two nodes matching the same lobby take turns; appends to
 * a group lock its study_groups row first (SELECT … FOR UPDATE), which hands out group_seq without gaps and makes a
 * resend's duplicate check exact.
 */
export class PgGroups implements GroupsRepo {
  constructor(private readonly db: Runner) {}

  async lockLobby(key: string): Promise<void> {
    if (!this.db.inTransaction) throw new Error('lockLobby needs a transaction (it holds the lock until COMMIT)');
    await this.db.one(LOBBY_SQL.lock.postgres, [LOBBY_LOCK_NAMESPACE, key]);
  }

  async joinLobby(e: NewLobbyEntry): Promise<{ entry: LobbyEntryRow; created: boolean }> {
    const n = await this.db.run(LOBBY_SQL.join.postgres, rows.joinLobbyParams(e));
    return { entry: (await this.getLobbyEntry(e.sessionId))!, created: n === 1 };
  }

  async getLobbyEntry(sessionId: string): Promise<LobbyEntryRow | undefined> {
    const r = await this.db.one<rows.RawLobbyEntry>(LOBBY_SQL.get.postgres, [sessionId]);
    return r && rows.toLobbyEntry(r);
  }

  async listWaiting(studyId: string, conditionId: string, taskId: string): Promise<LobbyEntryRow[]> {
    return (await this.db.rows<rows.RawLobbyEntry>(LOBBY_SQL.listWaiting.postgres, [studyId, conditionId, taskId])).map(rows.toLobbyEntry);
  }

  async listDueLobby(now: number): Promise<LobbyEntryRow[]> {
    return (await this.db.rows<rows.RawLobbyEntry>(LOBBY_SQL.listDue.postgres, [now])).map(rows.toLobbyEntry);
  }

  settleLobby(sessionIds: readonly string[], outcome: LobbyOutcome, at: number, groupId: string | null): Promise<number> {
    if (sessionIds.length === 0) return Promise.resolve(0);
    return this.db.run(LOBBY_SQL.settle.postgres, [outcome, at, groupId, JSON.stringify(sessionIds)]);
  }

  async listLobbyEntries(studyId: string): Promise<LobbyEntryRow[]> {
    return (await this.db.rows<rows.RawLobbyEntry>(LOBBY_SQL.listForStudy.postgres, [studyId])).map(rows.toLobbyEntry);
  }

  async createGroup(g: Omit<GroupRow, 'status' | 'endReason' | 'endedAt'>): Promise<void> {
    await this.db.run(GROUP_SQL.create.postgres, rows.createGroupParams(g));
  }

  async getGroup(groupId: string): Promise<GroupRow | undefined> {
    const r = await this.db.one<rows.RawGroup>(GROUP_SQL.get.postgres, [groupId]);
    return r && rows.toGroup(r);
  }

  async listGroups(studyId: string): Promise<GroupRow[]> {
    return (await this.db.rows<rows.RawGroup>(GROUP_SQL.listForStudy.postgres, [studyId])).map(rows.toGroup);
  }

  async listActiveGroups(): Promise<GroupRow[]> {
    return (await this.db.rows<rows.RawGroup>(GROUP_SQL.listActive.postgres)).map(rows.toGroup);
  }

  async endGroup(groupId: string, reason: string, at: number): Promise<boolean> {
    return (await this.db.run(GROUP_SQL.end.postgres, [reason, at, groupId])) === 1;
  }

  async addMember(m: Omit<GroupMemberRow, 'awaySince' | 'leftAt'>): Promise<void> {
    await this.db.run(GROUP_MEMBER_SQL.add.postgres, rows.addMemberParams(m));
  }

  async listMembers(groupId: string): Promise<GroupMemberRow[]> {
    return (await this.db.rows<rows.RawGroupMember>(GROUP_MEMBER_SQL.list.postgres, [groupId])).map(rows.toGroupMember);
  }

  async memberBySession(sessionId: string): Promise<GroupMemberRow | undefined> {
    const r = await this.db.one<rows.RawGroupMember>(GROUP_MEMBER_SQL.bySession.postgres, [sessionId]);
    return r && rows.toGroupMember(r);
  }

  async setMemberStatus(groupId: string, seat: number, status: GroupMemberStatus, at: number): Promise<void> {
    await this.db.run(GROUP_MEMBER_SQL.setStatus.postgres, rows.memberStatusParams(groupId, seat, status, at));
  }

  async replaceMemberWithAgent(groupId: string, seat: number, displayName: string, at: number): Promise<void> {
    await this.db.run(GROUP_MEMBER_SQL.replaceWithAgent.postgres, [displayName, at, groupId, seat]);
  }

  async appendEvent(e: Omit<GroupEventRow, 'id'>): Promise<number> {
    return (await this.db.one<{ id: number }>(GROUP_EVENT_SQL.append.postgres, rows.appendEventParams(e)))!.id;
  }

  async listEvents(studyId: string): Promise<GroupEventRow[]> {
    return (await this.db.rows<rows.RawGroupEvent>(GROUP_EVENT_SQL.listForStudy.postgres, [studyId])).map(rows.toGroupEvent);
  }

  async listGroupEvents(groupId: string): Promise<GroupEventRow[]> {
    return (await this.db.rows<rows.RawGroupEvent>(GROUP_EVENT_SQL.listForGroup.postgres, [groupId])).map(rows.toGroupEvent);
  }

  appendMessage(m: Omit<GroupMessageRow, 'groupSeq'>): Promise<{ message: GroupMessageRow; inserted: boolean }> {
    return this.db.atomic(async (db) => {
      const seq = await lockedNextSeq(db, GROUP_SQL.nextMessageSeq.postgres, m.groupId);
      if (m.sessionId !== null && m.clientId !== null) {
        const dup = await db.one<rows.RawGroupMessage>(GROUP_MESSAGE_SQL.byClientId.postgres, [m.sessionId, m.clientId]);
        if (dup) return { message: rows.toGroupMessage(dup), inserted: false };
      }
      await db.run(GROUP_MESSAGE_SQL.insert.postgres, rows.insertMessageParams(m, seq));
      await db.run(GROUP_SQL.setMessageSeq.postgres, [seq, m.groupId]);
      return { message: { ...m, groupSeq: seq }, inserted: true };
    });
  }

  async findMessageByClientId(sessionId: string, clientId: string): Promise<GroupMessageRow | undefined> {
    const r = await this.db.one<rows.RawGroupMessage>(GROUP_MESSAGE_SQL.byClientId.postgres, [sessionId, clientId]);
    return r && rows.toGroupMessage(r);
  }

  async listMessages(groupId: string, afterSeq = 0): Promise<GroupMessageRow[]> {
    return (await this.db.rows<rows.RawGroupMessage>(GROUP_MESSAGE_SQL.listAfter.postgres, [groupId, afterSeq])).map(rows.toGroupMessage);
  }

  async countMemberMessages(sessionId: string): Promise<number> {
    return (await this.db.one<{ n: number }>(GROUP_MESSAGE_SQL.countForSession.postgres, [sessionId]))!.n;
  }

  appendDocUpdate(u: Omit<GroupDocUpdateRow, 'seq'>): Promise<number> {
    return this.db.atomic(async (db) => {
      const seq = await lockedNextSeq(db, GROUP_SQL.nextDocSeq.postgres, u.groupId);
      await db.run(GROUP_DOC_SQL.insert.postgres, rows.insertDocUpdateParams(u, seq));
      await db.run(GROUP_SQL.setDocSeq.postgres, [seq, u.groupId]);
      return seq;
    });
  }

  async listDocUpdates(groupId: string): Promise<GroupDocUpdateRow[]> {
    return (await this.db.rows<rows.RawGroupDocUpdate>(GROUP_DOC_SQL.list.postgres, [groupId])).map(rows.toGroupDocUpdate);
  }

  async countMemberDocUpdates(sessionId: string): Promise<number> {
    return (await this.db.one<{ n: number }>(GROUP_DOC_SQL.countForSession.postgres, [sessionId]))!.n;
  }
}

/** Locks the group's row (every append to the group queues here) and returns its next number. */
async function lockedNextSeq(db: Runner, text: string, groupId: string): Promise<number> {
  const r = await db.one<{ seq: number }>(text, [groupId]);
  if (!r) throw new Error(`no group ${groupId}`);
  return r.seq;
}
