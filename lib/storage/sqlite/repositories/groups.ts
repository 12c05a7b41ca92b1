import { cachedStatement, type SqliteDatabase } from '../database';
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
} from '../../contract/groups';
import {
  toGroup,
  toGroupDocUpdate,
  toGroupEvent,
  toGroupMember,
  toGroupMessage,
  toLobbyEntry,
  type RawGroup,
  type RawGroupDocUpdate,
  type RawGroupEvent,
  type RawGroupMember,
  type RawGroupMessage,
  type RawLobbyEntry,
} from '../../rows/groups';

const GONE: readonly GroupMemberStatus[] = ['dropped', 'left', 'replaced', 'withdrawn'];

/**
 * Group sessions on SQLite (contract in ../../contract/groups.ts). One connection runs every statement, and a
 * store transaction is BEGIN IMMEDIATE, so a matching decision is serialised without a lock of its own. The
 * multi-statement appends run in a better-sqlite3 transaction (a savepoint inside a store transaction).
 */
export class GroupsRepository implements Sync<GroupsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  lockLobby(_key: string): void {
    // One writer: the store's transaction gate already excludes every other matching decision.
  }

  joinLobby(e: Omit<LobbyEntryRow, 'outcome' | 'outcomeAt' | 'groupId'>): { entry: LobbyEntryRow; created: boolean } {
    const created =
      cachedStatement(
        this.db,
        `INSERT INTO lobby_entries (session_id, study_id, condition_id, task_id, quota_value, joined_at, deadline_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING`,
      ).run(e.sessionId, e.studyId, e.conditionId, e.taskId, e.quotaValue, e.joinedAt, e.deadlineAt).changes === 1;
    return { entry: this.getLobbyEntry(e.sessionId)!, created };
  }

  getLobbyEntry(sessionId: string): LobbyEntryRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM lobby_entries WHERE session_id = ?').get(sessionId) as RawLobbyEntry | undefined;
    return r && toLobbyEntry(r);
  }

  listWaiting(studyId: string, conditionId: string, taskId: string): LobbyEntryRow[] {
    return (
      cachedStatement(
        this.db,
        `SELECT * FROM lobby_entries WHERE study_id = ? AND condition_id = ? AND task_id = ? AND outcome IS NULL
          ORDER BY joined_at, session_id`,
      ).all(studyId, conditionId, taskId) as RawLobbyEntry[]
    ).map(toLobbyEntry);
  }

  listDueLobby(now: number): LobbyEntryRow[] {
    return (
      cachedStatement(this.db, 'SELECT * FROM lobby_entries WHERE outcome IS NULL AND deadline_at <= ? ORDER BY joined_at, session_id').all(now) as RawLobbyEntry[]
    ).map(toLobbyEntry);
  }

  settleLobby(sessionIds: readonly string[], outcome: LobbyOutcome, at: number, groupId: string | null): number {
    if (sessionIds.length === 0) return 0;
    return cachedStatement(
      this.db,
      `UPDATE lobby_entries SET outcome = ?, outcome_at = ?, group_id = ?
        WHERE outcome IS NULL AND session_id IN (SELECT value FROM json_each(?))`,
    ).run(outcome, at, groupId, JSON.stringify(sessionIds)).changes;
  }

  listLobbyEntries(studyId: string): LobbyEntryRow[] {
    return (cachedStatement(this.db, 'SELECT * FROM lobby_entries WHERE study_id = ? ORDER BY joined_at, session_id').all(studyId) as RawLobbyEntry[]).map(toLobbyEntry);
  }

  createGroup(g: Omit<GroupRow, 'status' | 'endReason' | 'endedAt'>): void {
    cachedStatement(
      this.db,
      `INSERT INTO study_groups (id, study_id, condition_id, task_id, status, size_at_start, agents, formed_at)
       VALUES (?, ?, ?, ?, 'active', ?, ?, ?)`,
    ).run(g.id, g.studyId, g.conditionId, g.taskId, g.sizeAtStart, JSON.stringify(g.agents), g.formedAt);
  }

  getGroup(groupId: string): GroupRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM study_groups WHERE id = ?').get(groupId) as RawGroup | undefined;
    return r && toGroup(r);
  }

  listGroups(studyId: string): GroupRow[] {
    return (cachedStatement(this.db, 'SELECT * FROM study_groups WHERE study_id = ? ORDER BY formed_at, id').all(studyId) as RawGroup[]).map(toGroup);
  }

  listActiveGroups(): GroupRow[] {
    return (cachedStatement(this.db, "SELECT * FROM study_groups WHERE status = 'active' ORDER BY formed_at, id").all() as RawGroup[]).map(toGroup);
  }

  endGroup(groupId: string, reason: string, at: number): boolean {
    return (
      cachedStatement(this.db, "UPDATE study_groups SET status = 'ended', end_reason = ?, ended_at = ? WHERE id = ? AND status = 'active'").run(reason, at, groupId)
        .changes === 1
    );
  }

  addMember(m: Omit<GroupMemberRow, 'awaySince' | 'leftAt'>): void {
    cachedStatement(
      this.db,
      'INSERT INTO group_members (group_id, seat, kind, session_id, display_name, status, joined_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(m.groupId, m.seat, m.kind, m.sessionId, m.displayName, m.status, m.joinedAt);
  }

  listMembers(groupId: string): GroupMemberRow[] {
    return (cachedStatement(this.db, 'SELECT * FROM group_members WHERE group_id = ? ORDER BY seat').all(groupId) as RawGroupMember[]).map(toGroupMember);
  }

  memberBySession(sessionId: string): GroupMemberRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM group_members WHERE session_id = ?').get(sessionId) as RawGroupMember | undefined;
    return r && toGroupMember(r);
  }

  setMemberStatus(groupId: string, seat: number, status: GroupMemberStatus, at: number): void {
    cachedStatement(
      this.db,
      `UPDATE group_members SET status = ?, away_since = CASE WHEN ? = 'away' THEN COALESCE(away_since, ?) ELSE NULL END,
              left_at = CASE WHEN ? = 1 THEN ? ELSE left_at END
        WHERE group_id = ? AND seat = ?`,
    ).run(status, status, at, GONE.includes(status) ? 1 : 0, at, groupId, seat);
  }

  replaceMemberWithAgent(groupId: string, seat: number, displayName: string, at: number): void {
    cachedStatement(
      this.db,
      `UPDATE group_members SET kind = 'agent', session_id = NULL, display_name = ?, status = 'present', away_since = NULL, joined_at = ?, left_at = NULL
        WHERE group_id = ? AND seat = ?`,
    ).run(displayName, at, groupId, seat);
  }

  appendEvent(e: Omit<GroupEventRow, 'id'>): number {
    return Number(
      cachedStatement(this.db, 'INSERT INTO group_events (study_id, group_id, session_id, type, server_ts, payload) VALUES (?, ?, ?, ?, ?, ?)').run(
        e.studyId,
        e.groupId,
        e.sessionId,
        e.type,
        e.serverTs,
        JSON.stringify(e.payload),
      ).lastInsertRowid,
    );
  }

  listEvents(studyId: string): GroupEventRow[] {
    return (cachedStatement(this.db, 'SELECT * FROM group_events WHERE study_id = ? ORDER BY id').all(studyId) as RawGroupEvent[]).map(toGroupEvent);
  }

  listGroupEvents(groupId: string): GroupEventRow[] {
    return (cachedStatement(this.db, 'SELECT * FROM group_events WHERE group_id = ? ORDER BY id').all(groupId) as RawGroupEvent[]).map(toGroupEvent);
  }

  appendMessage(m: Omit<GroupMessageRow, 'groupSeq'>): { message: GroupMessageRow; inserted: boolean } {
    return this.db.transaction(() => {
      if (m.sessionId !== null && m.clientId !== null) {
        const dup = cachedStatement(this.db, 'SELECT * FROM group_messages WHERE session_id = ? AND client_id = ?').get(m.sessionId, m.clientId) as
          | RawGroupMessage
          | undefined;
        if (dup) return { message: toGroupMessage(dup), inserted: false };
      }
      const seq = this.nextSeq('next_seq', m.groupId);
      cachedStatement(
        this.db,
        `INSERT INTO group_messages (id, group_id, group_seq, sender_kind, session_id, sender_name, client_id, content, tokens, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(m.id, m.groupId, seq, m.senderKind, m.sessionId, m.senderName, m.clientId, m.content, m.tokens, m.createdAt);
      return { message: { ...m, groupSeq: seq }, inserted: true };
    })();
  }

  listMessages(groupId: string, afterSeq = 0): GroupMessageRow[] {
    return (
      cachedStatement(this.db, 'SELECT * FROM group_messages WHERE group_id = ? AND group_seq > ? ORDER BY group_seq').all(groupId, afterSeq) as RawGroupMessage[]
    ).map(toGroupMessage);
  }

  countMemberMessages(sessionId: string): number {
    return (cachedStatement(this.db, 'SELECT COUNT(*) AS n FROM group_messages WHERE session_id = ?').get(sessionId) as { n: number }).n;
  }

  appendDocUpdate(u: Omit<GroupDocUpdateRow, 'seq'>): number {
    return this.db.transaction(() => {
      const seq = this.nextSeq('next_doc_seq', u.groupId);
      cachedStatement(this.db, 'INSERT INTO group_doc_updates (group_id, seq, session_id, field_id, doc_update, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
        u.groupId,
        seq,
        u.sessionId,
        u.fieldId,
        u.update,
        u.createdAt,
      );
      return seq;
    })();
  }

  listDocUpdates(groupId: string): GroupDocUpdateRow[] {
    return (cachedStatement(this.db, 'SELECT * FROM group_doc_updates WHERE group_id = ? ORDER BY seq').all(groupId) as RawGroupDocUpdate[]).map(toGroupDocUpdate);
  }

  countMemberDocUpdates(sessionId: string): number {
    return (cachedStatement(this.db, 'SELECT COUNT(*) AS n FROM group_doc_updates WHERE session_id = ?').get(sessionId) as { n: number }).n;
  }

  private nextSeq(column: 'next_seq' | 'next_doc_seq', groupId: string): number {
    const r = cachedStatement(this.db, `UPDATE study_groups SET ${column} = ${column} + 1 WHERE id = ? RETURNING ${column} AS seq`).get(groupId) as
      | { seq: number }
      | undefined;
    if (!r) throw new Error(`no group ${groupId}`);
    return r.seq;
  }
}
