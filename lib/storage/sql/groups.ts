/**
 * The group tables' queries (migrations 028, 029; contract/groups.ts) on both engines (engineSql.ts for the forms).
 * Parameter lists are rows/groups.ts's *Params functions where a row goes in.
 */
import { both, postgresOnly, variant } from './engineSql';

/** Arbitrary constant naming "Tandem lobby" among the database's (int4, int4) advisory locks. */
export const LOBBY_LOCK_NAMESPACE = 7_311_028;

/** The group's row: every append to the group queues on it (PostgreSQL), and it numbers the room and the document. */
const nextNumber = (column: 'next_seq' | 'next_doc_seq') =>
  variant('row lock', {
    sqlite: `SELECT ${column} + 1 AS seq FROM study_groups WHERE id = ?`,
    postgres: `SELECT ${column} + 1 AS seq FROM study_groups WHERE id = $1 FOR UPDATE`,
  });

export const LOBBY_SQL = {
  /**
   * A transaction-scoped advisory lock on one lobby (its key hashed): two nodes matching the same lobby take turns.
   * SQLite: nothing to take (the store's BEGIN IMMEDIATE already excludes every other writer).
   */
  lock: postgresOnly('row lock', 'SELECT pg_advisory_xact_lock($1, hashtext($2))'),
  /**
   * Parameters: joinLobbyParams(entry). The entry's arrival_seq is the lobby's next number (migration 029), read in
   * the same statement under the lobby's lock, so joins number in the order they commit; a second join of the
   * same session inserts nothing (several tabs count once).
   */
  join: both(`INSERT INTO lobby_entries (session_id, study_id, condition_id, task_id, quota_value, joined_at, deadline_at, arrival_seq)
       VALUES (?, ?, ?, ?, ?, ?, ?,
         (SELECT COALESCE(MAX(e.arrival_seq), 0) + 1 FROM lobby_entries e WHERE e.study_id = ? AND e.condition_id = ? AND e.task_id = ?))
       ON CONFLICT (session_id) DO NOTHING`),
  get: both('SELECT * FROM lobby_entries WHERE session_id = ?'),
  /** One lobby's waiting people in arrival order (first come, first seated). */
  listWaiting: both(`SELECT * FROM lobby_entries WHERE study_id = ? AND condition_id = ? AND task_id = ? AND outcome IS NULL
        ORDER BY arrival_seq`),
  listDue: both(`SELECT * FROM lobby_entries WHERE outcome IS NULL AND deadline_at <= ?
        ORDER BY joined_at, study_id, condition_id, task_id, arrival_seq`),
  /** Parameters: outcome, at, group id, the session ids as a JSON array. */
  settle: variant('json', {
    sqlite: `UPDATE lobby_entries SET outcome = ?, outcome_at = ?, group_id = ?
        WHERE outcome IS NULL AND session_id IN (SELECT value FROM json_each(?))`,
    postgres: `UPDATE lobby_entries SET outcome = $1, outcome_at = $2, group_id = $3
        WHERE outcome IS NULL AND session_id IN (SELECT jsonb_array_elements_text($4::jsonb))`,
  }),
  listForStudy: both('SELECT * FROM lobby_entries WHERE study_id = ? ORDER BY joined_at, condition_id, task_id, arrival_seq'),
} as const;

export const GROUP_SQL = {
  /** Parameters: createGroupParams(group). */
  create: both(`INSERT INTO study_groups (id, study_id, condition_id, task_id, status, size_at_start, agents, formed_at)
       VALUES (?, ?, ?, ?, 'active', ?, ?, ?)`),
  get: both('SELECT * FROM study_groups WHERE id = ?'),
  listForStudy: both('SELECT * FROM study_groups WHERE study_id = ? ORDER BY formed_at, id'),
  listActive: both("SELECT * FROM study_groups WHERE status = 'active' ORDER BY formed_at, id"),
  /** Parameters: reason, at, group id. */
  end: both("UPDATE study_groups SET status = 'ended', end_reason = ?, ended_at = ? WHERE id = ? AND status = 'active'"),
  nextMessageSeq: nextNumber('next_seq'),
  nextDocSeq: nextNumber('next_doc_seq'),
  /** Parameters: seq, group id (after the row was locked by nextMessageSeq / nextDocSeq). */
  setMessageSeq: both('UPDATE study_groups SET next_seq = ? WHERE id = ?'),
  setDocSeq: both('UPDATE study_groups SET next_doc_seq = ? WHERE id = ?'),
} as const;

export const GROUP_MEMBER_SQL = {
  /** Parameters: addMemberParams(member). */
  add: both('INSERT INTO group_members (group_id, seat, kind, session_id, display_name, status, joined_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
  list: both('SELECT * FROM group_members WHERE group_id = ? ORDER BY seat'),
  bySession: both('SELECT * FROM group_members WHERE session_id = ?'),
  /** Parameters: memberStatusParams(…): status, status, at, gone (0/1), at, group id, seat. */
  setStatus: both(`UPDATE group_members SET status = ?, away_since = CASE WHEN ? = 'away' THEN COALESCE(away_since, ?) ELSE NULL END,
              left_at = CASE WHEN ? = 1 THEN ? ELSE left_at END
        WHERE group_id = ? AND seat = ?`),
  /** Parameters: display name, at, group id, seat. */
  replaceWithAgent: both(`UPDATE group_members SET kind = 'agent', session_id = NULL, display_name = ?, status = 'present', away_since = NULL, joined_at = ?,
              left_at = NULL
        WHERE group_id = ? AND seat = ?`),
} as const;

export const GROUP_EVENT_SQL = {
  /** Parameters: appendEventParams(event). */
  append: both('INSERT INTO group_events (study_id, group_id, session_id, type, server_ts, payload) VALUES (?, ?, ?, ?, ?, ?) RETURNING id'),
  listForStudy: both('SELECT * FROM group_events WHERE study_id = ? ORDER BY id'),
  listForGroup: both('SELECT * FROM group_events WHERE group_id = ? ORDER BY id'),
} as const;

export const GROUP_MESSAGE_SQL = {
  byClientId: both('SELECT * FROM group_messages WHERE session_id = ? AND client_id = ?'),
  /** Parameters: insertMessageParams(message, seq). */
  insert: both(`INSERT INTO group_messages (id, group_id, group_seq, sender_kind, session_id, sender_name, client_id, content, tokens, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  listAfter: both('SELECT * FROM group_messages WHERE group_id = ? AND group_seq > ? ORDER BY group_seq'),
  countForSession: both('SELECT COUNT(*) AS n FROM group_messages WHERE session_id = ?'),
} as const;

export const GROUP_DOC_SQL = {
  /** Parameters: group id, seq, session id, field id, update (base64), created_at. */
  insert: both('INSERT INTO group_doc_updates (group_id, seq, session_id, field_id, doc_update, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
  list: both('SELECT * FROM group_doc_updates WHERE group_id = ? ORDER BY seq'),
  countForSession: both('SELECT COUNT(*) AS n FROM group_doc_updates WHERE session_id = ?'),
} as const;

/** Withdrawing one member of a group (withdrawals repositories; docs/groups.md "Withdrawal of one member"). */
export const GROUP_WITHDRAWAL_SQL = {
  /** The group's row lock (PostgreSQL): appends to the room and the document wait until the withdrawal commits. */
  lockGroup: postgresOnly('row lock', 'SELECT id FROM study_groups WHERE id = $1 FOR UPDATE'),
  /** The groups a session left anything in. Parameters: the session id four times. */
  groupsOfSession: both(`SELECT group_id FROM group_members WHERE session_id = ?
       UNION SELECT group_id FROM group_messages WHERE session_id = ?
       UNION SELECT group_id FROM group_doc_updates WHERE session_id = ?
       UNION SELECT group_id FROM group_events WHERE session_id = ? AND group_id IS NOT NULL
       ORDER BY group_id`),
  /** Parameters: group id, seq. */
  deleteDocUpdate: both('DELETE FROM group_doc_updates WHERE group_id = ? AND seq = ?'),
  /** The group's judgement (migration 031) of a document or room that held the withdrawn words. Parameters: group id. */
  deleteGroupJudgements: both('DELETE FROM group_judgements WHERE group_id = ?'),
  deleteGroupQuality: both('DELETE FROM group_judge_quality WHERE group_id = ?'),
  /** Parameters: group id, session id. */
  deleteMessages: both('DELETE FROM group_messages WHERE group_id = ? AND session_id = ?'),
  /** Parameters: group id, session id. */
  deleteGroupEvents: both('DELETE FROM group_events WHERE group_id = ? AND session_id = ?'),
  /** The lobby events of a person never grouped (group_id NULL). Parameters: session id. */
  deleteLobbyEvents: both('DELETE FROM group_events WHERE group_id IS NULL AND session_id = ?'),
  /** The seat stays (its number and display name), without the session. Parameters: at, session id. */
  markWithdrawn: both(`UPDATE group_members SET status = 'withdrawn', session_id = NULL, away_since = NULL, left_at = COALESCE(left_at, ?)
        WHERE session_id = ?`),
} as const;

export const GROUP_WITHDRAWAL_COUNT_SQL = {
  /** Parameters: group id, session id. */
  messages: both('SELECT COUNT(*) AS n FROM group_messages WHERE group_id = ? AND session_id = ?'),
  /** Parameters: group id, session id. */
  events: both('SELECT COUNT(*) AS n FROM group_events WHERE group_id = ? AND session_id = ?'),
} as const;
