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

/** Arbitrary constant naming "Tandem lobby" among the database's (int4, int4) advisory locks. */
const LOBBY_LOCK_NAMESPACE = 7_311_028;
const GONE: readonly GroupMemberStatus[] = ['dropped', 'left', 'replaced', 'withdrawn'];

/**
 * Group sessions on PostgreSQL (contract in ../../contract/groups.ts). A matching decision holds a
 * transaction-scoped advisory lock on its lobby, so two nodes matching the same lobby take turns; appends to a
 * group lock its study_groups row first (SELECT … FOR UPDATE), which hands out group_seq without gaps and makes a
 * resend's duplicate check exact.
 */
export class PgGroups implements GroupsRepo {
  constructor(private readonly db: Runner) {}

  async lockLobby(key: string): Promise<void> {
    if (!this.db.inTransaction) throw new Error('lockLobby needs a transaction (it holds the lock until COMMIT)');
    await this.db.one('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOBBY_LOCK_NAMESPACE, key]);
  }

  async joinLobby(e: Omit<LobbyEntryRow, 'outcome' | 'outcomeAt' | 'groupId'>): Promise<{ entry: LobbyEntryRow; created: boolean }> {
    const n = await this.db.run(
      `INSERT INTO lobby_entries (session_id, study_id, condition_id, task_id, quota_value, joined_at, deadline_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (session_id) DO NOTHING`,
      [e.sessionId, e.studyId, e.conditionId, e.taskId, e.quotaValue, e.joinedAt, e.deadlineAt],
    );
    return { entry: (await this.getLobbyEntry(e.sessionId))!, created: n === 1 };
  }

  async getLobbyEntry(sessionId: string): Promise<LobbyEntryRow | undefined> {
    const r = await this.db.one<RawLobbyEntry>('SELECT * FROM lobby_entries WHERE session_id = $1', [sessionId]);
    return r && toLobbyEntry(r);
  }

  async listWaiting(studyId: string, conditionId: string, taskId: string): Promise<LobbyEntryRow[]> {
    return (
      await this.db.rows<RawLobbyEntry>(
        `SELECT * FROM lobby_entries WHERE study_id = $1 AND condition_id = $2 AND task_id = $3 AND outcome IS NULL
          ORDER BY joined_at, session_id`,
        [studyId, conditionId, taskId],
      )
    ).map(toLobbyEntry);
  }

  async listDueLobby(now: number): Promise<LobbyEntryRow[]> {
    return (await this.db.rows<RawLobbyEntry>('SELECT * FROM lobby_entries WHERE outcome IS NULL AND deadline_at <= $1 ORDER BY joined_at, session_id', [now])).map(
      toLobbyEntry,
    );
  }

  settleLobby(sessionIds: readonly string[], outcome: LobbyOutcome, at: number, groupId: string | null): Promise<number> {
    if (sessionIds.length === 0) return Promise.resolve(0);
    return this.db.run(
      `UPDATE lobby_entries SET outcome = $1, outcome_at = $2, group_id = $3
        WHERE outcome IS NULL AND session_id IN (SELECT jsonb_array_elements_text($4::jsonb))`,
      [outcome, at, groupId, JSON.stringify(sessionIds)],
    );
  }

  async listLobbyEntries(studyId: string): Promise<LobbyEntryRow[]> {
    return (await this.db.rows<RawLobbyEntry>('SELECT * FROM lobby_entries WHERE study_id = $1 ORDER BY joined_at, session_id', [studyId])).map(toLobbyEntry);
  }

  async createGroup(g: Omit<GroupRow, 'status' | 'endReason' | 'endedAt'>): Promise<void> {
    await this.db.run(
      `INSERT INTO study_groups (id, study_id, condition_id, task_id, status, size_at_start, agents, formed_at)
       VALUES ($1, $2, $3, $4, 'active', $5, $6, $7)`,
      [g.id, g.studyId, g.conditionId, g.taskId, g.sizeAtStart, JSON.stringify(g.agents), g.formedAt],
    );
  }

  async getGroup(groupId: string): Promise<GroupRow | undefined> {
    const r = await this.db.one<RawGroup>('SELECT * FROM study_groups WHERE id = $1', [groupId]);
    return r && toGroup(r);
  }

  async listGroups(studyId: string): Promise<GroupRow[]> {
    return (await this.db.rows<RawGroup>('SELECT * FROM study_groups WHERE study_id = $1 ORDER BY formed_at, id', [studyId])).map(toGroup);
  }

  async listActiveGroups(): Promise<GroupRow[]> {
    return (await this.db.rows<RawGroup>("SELECT * FROM study_groups WHERE status = 'active' ORDER BY formed_at, id")).map(toGroup);
  }

  async endGroup(groupId: string, reason: string, at: number): Promise<boolean> {
    return (await this.db.run("UPDATE study_groups SET status = 'ended', end_reason = $1, ended_at = $2 WHERE id = $3 AND status = 'active'", [reason, at, groupId])) === 1;
  }

  async addMember(m: Omit<GroupMemberRow, 'awaySince' | 'leftAt'>): Promise<void> {
    await this.db.run(
      'INSERT INTO group_members (group_id, seat, kind, session_id, display_name, status, joined_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [m.groupId, m.seat, m.kind, m.sessionId, m.displayName, m.status, m.joinedAt],
    );
  }

  async listMembers(groupId: string): Promise<GroupMemberRow[]> {
    return (await this.db.rows<RawGroupMember>('SELECT * FROM group_members WHERE group_id = $1 ORDER BY seat', [groupId])).map(toGroupMember);
  }

  async memberBySession(sessionId: string): Promise<GroupMemberRow | undefined> {
    const r = await this.db.one<RawGroupMember>('SELECT * FROM group_members WHERE session_id = $1', [sessionId]);
    return r && toGroupMember(r);
  }

  async setMemberStatus(groupId: string, seat: number, status: GroupMemberStatus, at: number): Promise<void> {
    await this.db.run(
      `UPDATE group_members SET status = $1, away_since = CASE WHEN $1 = 'away' THEN COALESCE(away_since, $2) ELSE NULL END,
              left_at = CASE WHEN $3 THEN $2 ELSE left_at END
        WHERE group_id = $4 AND seat = $5`,
      [status, at, GONE.includes(status), groupId, seat],
    );
  }

  async replaceMemberWithAgent(groupId: string, seat: number, displayName: string, at: number): Promise<void> {
    await this.db.run(
      `UPDATE group_members SET kind = 'agent', session_id = NULL, display_name = $1, status = 'present', away_since = NULL, joined_at = $2, left_at = NULL
        WHERE group_id = $3 AND seat = $4`,
      [displayName, at, groupId, seat],
    );
  }

  async appendEvent(e: Omit<GroupEventRow, 'id'>): Promise<number> {
    const r = await this.db.one<{ id: number }>(
      'INSERT INTO group_events (study_id, group_id, session_id, type, server_ts, payload) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
      [e.studyId, e.groupId, e.sessionId, e.type, e.serverTs, JSON.stringify(e.payload)],
    );
    return r!.id;
  }

  async listEvents(studyId: string): Promise<GroupEventRow[]> {
    return (await this.db.rows<RawGroupEvent>('SELECT * FROM group_events WHERE study_id = $1 ORDER BY id', [studyId])).map(toGroupEvent);
  }

  async listGroupEvents(groupId: string): Promise<GroupEventRow[]> {
    return (await this.db.rows<RawGroupEvent>('SELECT * FROM group_events WHERE group_id = $1 ORDER BY id', [groupId])).map(toGroupEvent);
  }

  appendMessage(m: Omit<GroupMessageRow, 'groupSeq'>): Promise<{ message: GroupMessageRow; inserted: boolean }> {
    return this.db.atomic(async (db) => {
      const seq = await lockedNextSeq(db, 'next_seq', m.groupId);
      if (m.sessionId !== null && m.clientId !== null) {
        const dup = await db.one<RawGroupMessage>('SELECT * FROM group_messages WHERE session_id = $1 AND client_id = $2', [m.sessionId, m.clientId]);
        if (dup) return { message: toGroupMessage(dup), inserted: false };
      }
      await db.run(
        `INSERT INTO group_messages (id, group_id, group_seq, sender_kind, session_id, sender_name, client_id, content, tokens, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [m.id, m.groupId, seq, m.senderKind, m.sessionId, m.senderName, m.clientId, m.content, m.tokens, m.createdAt],
      );
      await db.run('UPDATE study_groups SET next_seq = $1 WHERE id = $2', [seq, m.groupId]);
      return { message: { ...m, groupSeq: seq }, inserted: true };
    });
  }

  async listMessages(groupId: string, afterSeq = 0): Promise<GroupMessageRow[]> {
    return (await this.db.rows<RawGroupMessage>('SELECT * FROM group_messages WHERE group_id = $1 AND group_seq > $2 ORDER BY group_seq', [groupId, afterSeq])).map(
      toGroupMessage,
    );
  }

  async countMemberMessages(sessionId: string): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM group_messages WHERE session_id = $1', [sessionId]))!.n;
  }

  appendDocUpdate(u: Omit<GroupDocUpdateRow, 'seq'>): Promise<number> {
    return this.db.atomic(async (db) => {
      const seq = await lockedNextSeq(db, 'next_doc_seq', u.groupId);
      await db.run('INSERT INTO group_doc_updates (group_id, seq, session_id, field_id, doc_update, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        u.groupId,
        seq,
        u.sessionId,
        u.fieldId,
        u.update,
        u.createdAt,
      ]);
      await db.run('UPDATE study_groups SET next_doc_seq = $1 WHERE id = $2', [seq, u.groupId]);
      return seq;
    });
  }

  async listDocUpdates(groupId: string): Promise<GroupDocUpdateRow[]> {
    return (await this.db.rows<RawGroupDocUpdate>('SELECT * FROM group_doc_updates WHERE group_id = $1 ORDER BY seq', [groupId])).map(toGroupDocUpdate);
  }

  async countMemberDocUpdates(sessionId: string): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM group_doc_updates WHERE session_id = $1', [sessionId]))!.n;
  }
}

/** Locks the group's row (every append to the group queues here) and returns its next number. */
async function lockedNextSeq(db: Runner, column: 'next_seq' | 'next_doc_seq', groupId: string): Promise<number> {
  const r = await db.one<{ seq: number }>(`SELECT ${column} + 1 AS seq FROM study_groups WHERE id = $1 FOR UPDATE`, [groupId]);
  if (!r) throw new Error(`no group ${groupId}`);
  return r.seq;
}
