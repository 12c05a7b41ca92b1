import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';
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
import { GROUP_DOC_SQL, GROUP_EVENT_SQL, GROUP_MEMBER_SQL, GROUP_MESSAGE_SQL, GROUP_SQL, LOBBY_SQL } from '../../sql/groups';

/**
 * Group sessions on SQLite (contract in ../../contract/groups.ts; SQL in ../../sql/groups.ts). One connection runs
 * every statement, and a store transaction is BEGIN IMMEDIATE, so a matching decision is serialised without a lock of
 * its own. The multi-statement appends run in a better-sqlite3 transaction (a savepoint inside a store transaction).
 */
export class GroupsRepository extends SqliteRepository implements Sync<GroupsRepo> {
  lockLobby(_key: string): void {
    // One writer: the store's transaction gate already excludes every other matching decision.
  }

  joinLobby(e: NewLobbyEntry): { entry: LobbyEntryRow; created: boolean } {
    const created = this.q.run(LOBBY_SQL.join, ...rows.joinLobbyParams(e)) === 1;
    return { entry: this.getLobbyEntry(e.sessionId)!, created };
  }

  getLobbyEntry(sessionId: string): LobbyEntryRow | undefined {
    const r = this.q.one<rows.RawLobbyEntry>(LOBBY_SQL.get, sessionId);
    return r && rows.toLobbyEntry(r);
  }

  listWaiting(studyId: string, conditionId: string, taskId: string): LobbyEntryRow[] {
    return this.q.rows<rows.RawLobbyEntry>(LOBBY_SQL.listWaiting, studyId, conditionId, taskId).map(rows.toLobbyEntry);
  }

  listDueLobby(now: number): LobbyEntryRow[] {
    return this.q.rows<rows.RawLobbyEntry>(LOBBY_SQL.listDue, now).map(rows.toLobbyEntry);
  }

  settleLobby(sessionIds: readonly string[], outcome: LobbyOutcome, at: number, groupId: string | null): number {
    if (sessionIds.length === 0) return 0;
    return this.q.run(LOBBY_SQL.settle, outcome, at, groupId, JSON.stringify(sessionIds));
  }

  listLobbyEntries(studyId: string): LobbyEntryRow[] {
    return this.q.rows<rows.RawLobbyEntry>(LOBBY_SQL.listForStudy, studyId).map(rows.toLobbyEntry);
  }

  createGroup(g: Omit<GroupRow, 'status' | 'endReason' | 'endedAt'>): void {
    this.q.run(GROUP_SQL.create, ...rows.createGroupParams(g));
  }

  getGroup(groupId: string): GroupRow | undefined {
    const r = this.q.one<rows.RawGroup>(GROUP_SQL.get, groupId);
    return r && rows.toGroup(r);
  }

  listGroups(studyId: string): GroupRow[] {
    return this.q.rows<rows.RawGroup>(GROUP_SQL.listForStudy, studyId).map(rows.toGroup);
  }

  listActiveGroups(): GroupRow[] {
    return this.q.rows<rows.RawGroup>(GROUP_SQL.listActive).map(rows.toGroup);
  }

  endGroup(groupId: string, reason: string, at: number): boolean {
    return this.q.run(GROUP_SQL.end, reason, at, groupId) === 1;
  }

  addMember(m: Omit<GroupMemberRow, 'awaySince' | 'leftAt'>): void {
    this.q.run(GROUP_MEMBER_SQL.add, ...rows.addMemberParams(m));
  }

  listMembers(groupId: string): GroupMemberRow[] {
    return this.q.rows<rows.RawGroupMember>(GROUP_MEMBER_SQL.list, groupId).map(rows.toGroupMember);
  }

  memberBySession(sessionId: string): GroupMemberRow | undefined {
    const r = this.q.one<rows.RawGroupMember>(GROUP_MEMBER_SQL.bySession, sessionId);
    return r && rows.toGroupMember(r);
  }

  setMemberStatus(groupId: string, seat: number, status: GroupMemberStatus, at: number): void {
    this.q.run(GROUP_MEMBER_SQL.setStatus, ...rows.memberStatusParams(groupId, seat, status, at));
  }

  replaceMemberWithAgent(groupId: string, seat: number, displayName: string, at: number): void {
    this.q.run(GROUP_MEMBER_SQL.replaceWithAgent, displayName, at, groupId, seat);
  }

  appendEvent(e: Omit<GroupEventRow, 'id'>): number {
    return this.q.one<{ id: number }>(GROUP_EVENT_SQL.append, ...rows.appendEventParams(e))!.id;
  }

  listEvents(studyId: string): GroupEventRow[] {
    return this.q.rows<rows.RawGroupEvent>(GROUP_EVENT_SQL.listForStudy, studyId).map(rows.toGroupEvent);
  }

  listGroupEvents(groupId: string): GroupEventRow[] {
    return this.q.rows<rows.RawGroupEvent>(GROUP_EVENT_SQL.listForGroup, groupId).map(rows.toGroupEvent);
  }

  appendMessage(m: Omit<GroupMessageRow, 'groupSeq'>): { message: GroupMessageRow; inserted: boolean } {
    return this.db.transaction(() => {
      const seq = this.lockedNextSeq(GROUP_SQL.nextMessageSeq, m.groupId);
      if (m.sessionId !== null && m.clientId !== null) {
        const dup = this.q.one<rows.RawGroupMessage>(GROUP_MESSAGE_SQL.byClientId, m.sessionId, m.clientId);
        if (dup) return { message: rows.toGroupMessage(dup), inserted: false };
      }
      this.q.run(GROUP_MESSAGE_SQL.insert, ...rows.insertMessageParams(m, seq));
      this.q.run(GROUP_SQL.setMessageSeq, seq, m.groupId);
      return { message: { ...m, groupSeq: seq }, inserted: true };
    })();
  }

  findMessageByClientId(sessionId: string, clientId: string): GroupMessageRow | undefined {
    const r = this.q.one<rows.RawGroupMessage>(GROUP_MESSAGE_SQL.byClientId, sessionId, clientId);
    return r && rows.toGroupMessage(r);
  }

  listMessages(groupId: string, afterSeq = 0): GroupMessageRow[] {
    return this.q.rows<rows.RawGroupMessage>(GROUP_MESSAGE_SQL.listAfter, groupId, afterSeq).map(rows.toGroupMessage);
  }

  countMemberMessages(sessionId: string): number {
    return this.q.one<{ n: number }>(GROUP_MESSAGE_SQL.countForSession, sessionId)!.n;
  }

  appendDocUpdate(u: Omit<GroupDocUpdateRow, 'seq'>): number {
    return this.db.transaction(() => {
      const seq = this.lockedNextSeq(GROUP_SQL.nextDocSeq, u.groupId);
      this.q.run(GROUP_DOC_SQL.insert, ...rows.insertDocUpdateParams(u, seq));
      this.q.run(GROUP_SQL.setDocSeq, seq, u.groupId);
      return seq;
    })();
  }

  listDocUpdates(groupId: string): GroupDocUpdateRow[] {
    return this.q.rows<rows.RawGroupDocUpdate>(GROUP_DOC_SQL.list, groupId).map(rows.toGroupDocUpdate);
  }

  countMemberDocUpdates(sessionId: string): number {
    return this.q.one<{ n: number }>(GROUP_DOC_SQL.countForSession, sessionId)!.n;
  }

  private lockedNextSeq(q: typeof GROUP_SQL.nextMessageSeq, groupId: string): number {
    const r = this.q.one<{ seq: number }>(q, groupId);
    if (!r) throw new Error(`no group ${groupId}`);
    return r.seq;
  }
}
