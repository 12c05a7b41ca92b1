/** The researcher side's tables (audit_log, admin_credentials, admin_sessions, admin_jobs, withdrawals) and read models. */
import { both, postgresOnly } from './engineSql';

export const AUDIT_SQL = {
  /** Parameters: auditValues(entry). Returns the entry's id (an identity / INTEGER PRIMARY KEY). */
  append: both('INSERT INTO audit_log (at, actor, action, study_id, details) VALUES (?, ?, ?, ?, ?) RETURNING id'),
  /** Newest first (id grows with every append). */
  listAll: both('SELECT * FROM audit_log ORDER BY id DESC LIMIT ?'),
  /** A study's entries plus installation-wide ones (login, …). */
  listStudy: both('SELECT * FROM audit_log WHERE study_id = ? OR study_id IS NULL ORDER BY id DESC LIMIT ?'),
  countsAll: both('SELECT action, COUNT(*) AS n, MIN(at) AS first, MAX(at) AS last FROM audit_log GROUP BY action ORDER BY action'),
  countsStudy: both(
    'SELECT action, COUNT(*) AS n, MIN(at) AS first, MAX(at) AS last FROM audit_log WHERE study_id = ? OR study_id IS NULL GROUP BY action ORDER BY action',
  ),
} as const;

export const ADMIN_AUTH_SQL = {
  getCredential: both('SELECT * FROM admin_credentials WHERE id = 1'),
  /** Parameters: hash, source, created_at, updated_at. */
  setCredential: both(`INSERT INTO admin_credentials (id, password_hash, source, created_at, updated_at) VALUES (1, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET password_hash = excluded.password_hash, source = excluded.source, updated_at = excluded.updated_at`),
  /** Of several nodes starting at once, exactly one inserts. */
  insertCredentialIfAbsent: both(
    'INSERT INTO admin_credentials (id, password_hash, source, created_at, updated_at) VALUES (1, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
  ),
  /** Parameters: adminSessionValues(s). */
  insertSession: both('INSERT INTO admin_sessions (token_hash, csrf_token, actor, created_at, expires_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?)'),
  findLiveSession: both('SELECT * FROM admin_sessions WHERE token_hash = ? AND expires_at > ?'),
  touchSession: both('UPDATE admin_sessions SET last_seen_at = ? WHERE token_hash = ?'),
  deleteSession: both('DELETE FROM admin_sessions WHERE token_hash = ?'),
  deleteAllSessions: both('DELETE FROM admin_sessions'),
  deleteExpired: both('DELETE FROM admin_sessions WHERE expires_at <= ?'),
} as const;

export const WITHDRAWAL_SQL = {
  findSessionIds: both('SELECT session_id FROM identities WHERE study_id = ? AND platform_user_id = ? ORDER BY created_at, session_id'),
  uploadPaths: both('SELECT storage_path FROM uploads WHERE session_id = ? ORDER BY created_at, id'),
  /** Every science table cascades from sessions. */
  deleteSession: both('DELETE FROM sessions WHERE id = ?'),
  /**
   * Before a withdrawal deletes several sessions (PostgreSQL): their rows, then the balance counts their deletes will
   * change (migration 035), each in one order. A consent locks its session's row, then its condition's count, then
   * its task's; deleting session by session would take counts out of that order (one session's task count before
   * another's condition count) and could deadlock with it. Parameter: the session ids.
   */
  lockSessionsForDelete: postgresOnly('row lock', 'SELECT id FROM sessions WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE'),
  lockBalanceCountsForDelete: postgresOnly(
    'row lock',
    `SELECT 1 FROM balance_counts b JOIN sessions s ON s.study_id = b.study_id
       AND ((b.dimension = 'condition' AND b.option_id = s.condition_id) OR (b.dimension = 'task' AND b.option_id = s.task_id))
      WHERE s.id = ANY($1::text[]) AND s.is_pilot = 0 AND s.consented_at IS NOT NULL
      ORDER BY b.study_id, b.dimension, b.option_id FOR UPDATE OF b`,
  ),
  /** Parameters: withdrawalValues(w). A second withdrawal of the same person adds to the deleted count. */
  recordTombstone: both(`INSERT INTO withdrawals (study_id, tombstone, withdrawn_at, deleted_sessions, actor) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (study_id, tombstone) DO UPDATE SET deleted_sessions = withdrawals.deleted_sessions + excluded.deleted_sessions,
         withdrawn_at = excluded.withdrawn_at, actor = excluded.actor`),
  tombstones: both('SELECT tombstone FROM withdrawals WHERE study_id = ? ORDER BY tombstone'),
  isWithdrawn: both('SELECT 1 FROM withdrawals WHERE study_id = ? AND tombstone = ?'),
  count: both('SELECT COUNT(*) AS n FROM withdrawals WHERE study_id = ?'),
} as const;

export const ADMIN_JOB_SQL = {
  /** One running job per kind and study (a partial unique index): a second claim does nothing. */
  claim: both(`INSERT INTO admin_jobs (id, kind, study_id, state, actor, owner_node, owner_incarnation, message, created_at, heartbeat_at)
       VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`),
  progress: both(`UPDATE admin_jobs SET done = ?, total = ?, message = ?, heartbeat_at = ?
        WHERE id = ? AND state = 'running' AND owner_node = ? AND owner_incarnation = ?`),
  finish: both(
    `UPDATE admin_jobs SET state = ?, done = ?, total = ?, message = ?, result = ?, finished_at = ?, heartbeat_at = ? WHERE id = ? AND state = 'running'`,
  ),
  /** A finished export is downloaded once cluster-wide (migration 024). */
  take: both(`UPDATE admin_jobs SET taken_at = ? WHERE id = ? AND state = 'done' AND taken_at IS NULL`),
  get: both('SELECT * FROM admin_jobs WHERE id = ?'),
  latest: both('SELECT * FROM admin_jobs WHERE study_id = ? AND kind = ? ORDER BY created_at DESC, id DESC LIMIT 1'),
  abandonStale: both(`UPDATE admin_jobs SET state = 'failed', message = ?, finished_at = ?
        WHERE state = 'running' AND (heartbeat_at <= ? OR (owner_node = ? AND owner_incarnation <> ?))
        RETURNING *`),
} as const;

/** The monitor and session-list SELECT; the queries below append their WHERE/ORDER BY/LIMIT. */
const MONITOR_SELECT = `
  SELECT s.id, s.task_id, s.condition_id, s.step, s.status, s.is_pilot, s.created_at, s.consented_at, s.ended_at, s.submitted_at,
    COALESCE((SELECT MAX(e.server_ts) FROM events e WHERE e.session_id = s.id), s.created_at) AS last_activity_at,
    (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS messages
  FROM sessions s`;

export const ADMIN_QUERY_SQL = {
  countsByConditionAndStatus: both(
    'SELECT condition_id, status, is_pilot, COUNT(*) AS n FROM sessions WHERE study_id = ? GROUP BY condition_id, status, is_pilot ORDER BY condition_id, status, is_pilot',
  ),
  /** The highest event id: grows with every append on any node (a cheap change detector). */
  lastEventId: both('SELECT COALESCE(MAX(id), 0) AS id FROM events'),
  /** Active sessions plus those that ended since a time, newest first. */
  monitorRows: both(`${MONITOR_SELECT} WHERE s.study_id = ? AND (s.status = 'active' OR s.ended_at >= ?) ORDER BY s.created_at DESC, s.id LIMIT ?`),
  /** A page of the study's sessions, newest first. */
  listSessions: both(`${MONITOR_SELECT} WHERE s.study_id = ? ORDER BY s.created_at DESC, s.id LIMIT ? OFFSET ?`),
  /** The judge samples of a session, by version, rubric, sample (and model, for samples of several). */
  judgeSamples: both(`SELECT artifact_version, rubric_id, COALESCE(reported_model, requested_model) AS model, sample, score, parse_ok, failure_reason
   FROM judgements WHERE session_id = ? ORDER BY artifact_version, rubric_id, sample, requested_model`),
  /** Judged non-pilot sessions of one task with their token sums (for Pz within task). */
  judgedInTask: both(`SELECT s.id, q.quality,
     (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'user') AS user_tokens,
     (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant') AS agent_tokens
   FROM sessions s JOIN judge_quality q ON q.session_id = s.id
   WHERE s.study_id = ? AND s.task_id = ? AND s.is_pilot = 0 AND q.quality IS NOT NULL ORDER BY s.id`),
  quality: both('SELECT quality FROM judge_quality WHERE session_id = ?'),
} as const;
