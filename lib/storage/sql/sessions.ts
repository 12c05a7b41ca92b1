/** The `sessions` queries of both engines (see engineSql.ts for how a query is written once). */
import type { SessionAt, SessionPatch } from '../contract/store';
import { both, postgresOnly, variant, type EngineSql } from './engineSql';

export const SESSION_SQL = {
  /** Parameters: id, study, task, condition, is_pilot (0/1), created_at, updated_at. */
  insert: both(`INSERT INTO sessions (id, study_id, task_id, condition_id, step, status, is_pilot, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'consent', 'active', ?, ?, ?) RETURNING *`),
  get: both('SELECT * FROM sessions WHERE id = ?'),
  markSimulated: both('UPDATE sessions SET simulated = 1 WHERE id = ?'),
  /** SQLite: a plain read (BEGIN IMMEDIATE already holds the write lock). PostgreSQL: tandem_append_event's lock. */
  getForUpdate: variant('row lock', {
    sqlite: 'SELECT * FROM sessions WHERE id = ?',
    postgres: 'SELECT * FROM sessions WHERE id = $1 FOR NO KEY UPDATE',
  }),
  listByStudy: both('SELECT * FROM sessions WHERE study_id = ? ORDER BY created_at, id'),
  countActive: both(`SELECT COUNT(*) AS n FROM sessions WHERE study_id = ? AND status = 'active'`),
  listActiveConsentedBefore: both(
    `SELECT * FROM sessions WHERE status = 'active' AND consented_at IS NOT NULL AND consented_at < ? ORDER BY consented_at, id`,
  ),
  countAll: both('SELECT COUNT(*) AS n FROM sessions'),
  countInStudy: both('SELECT COUNT(*) AS n FROM sessions WHERE study_id = ?'),
  /** The storage budget: counted message and event bytes plus the draft's current size. */
  storageBytes: both(
    `SELECT s.stored_bytes + COALESCE((SELECT octet_length(d.fields) FROM artifact_drafts d WHERE d.session_id = s.id), 0) AS bytes
       FROM sessions s WHERE s.id = ?`,
  ),
  /**
   * SessionsRepo.change and changeFrom on PostgreSQL: session, the step and status it must be at (null: any), event
   * types, payloads (JSON texts), client times, patch (changePatch), now. SQLite runs EVENT_SQL's append statements
   * and sessionUpdate in the caller's transaction.
   */
  change: postgresOnly('plpgsql', 'SELECT tandem_change_session_from($1, $2, $3, $4, $5, $6, $7, $8) AS answer'),
  /** The per-session storage budget's counter (sessions.storageBytes): bytes, session id. */
  addStoredBytes: both('UPDATE sessions SET stored_bytes = stored_bytes + ? WHERE id = ?'),
} as const;

/**
 * Non-pilot sessions per condition or task (k, n; options with none absent). Without unconsentedSince, counted in
 * `sessions` (reads every session of the study). With it (the join's balanced assignment), the consented ones come
 * from balance_counts, which triggers keep (migration 035), and the unconsented ones still fresh from the partial index
 * sessions_unconsented_fresh: the cost follows the number of options and of recent visits, not the study's size.
 * Parameters: study id, study id, unconsentedSince.
 */
export const sessionCountBy = (column: 'condition_id' | 'task_id', withUnconsentedSince: boolean) =>
  withUnconsentedSince
    ? both(`SELECT k, SUM(n) AS n FROM (
               SELECT option_id AS k, consented AS n FROM balance_counts WHERE study_id = ? AND dimension = '${column === 'condition_id' ? 'condition' : 'task'}'
               UNION ALL
               SELECT ${column} AS k, COUNT(*) AS n FROM sessions
                WHERE study_id = ? AND is_pilot = 0 AND consented_at IS NULL AND status = 'active' AND created_at >= ? GROUP BY ${column}
             ) counted GROUP BY k HAVING SUM(n) > 0 ORDER BY k`)
    : both(`SELECT ${column} AS k, COUNT(*) AS n FROM sessions WHERE study_id = ? AND is_pilot = 0 GROUP BY ${column} ORDER BY ${column}`);

export const SESSION_COUNT_BY = {
  condition: { all: sessionCountBy('condition_id', false), fresh: sessionCountBy('condition_id', true) },
  task: { all: sessionCountBy('task_id', false), fresh: sessionCountBy('task_id', true) },
} as const;

const PATCH_COLUMNS: Record<keyof SessionPatch, string> = {
  step: 'step',
  status: 'status',
  consentVersion: 'consent_version',
  consentedAt: 'consented_at',
  submittedAt: 'submitted_at',
  endedAt: 'ended_at',
};

/** The patch's keys that are patchable columns, in the order given. */
const patchKeys = (patch: SessionPatch) => (Object.keys(patch) as (keyof SessionPatch)[]).filter((k) => k in PATCH_COLUMNS);

/** A patch as tandem_change_session reads it: the patchable keys given, undefined sent as null (as sessionUpdate). */
export function changePatch(patch: SessionPatch): string {
  const keys = patchKeys(patch);
  return JSON.stringify(Object.fromEntries(keys.map((k) => [k, patch[k] ?? null])));
}

/**
 * The UPDATE of a patch (its keys in the order given, then updated_at, then the id) returning the row, and its
 * values. Keys that are not patchable columns are ignored. With `from`, the row is updated only while it is at that
 * step and status (SessionsRepo.changeFrom on SQLite). (A text per set of keys; both engines cache it.)
 */
export function sessionUpdate(patch: SessionPatch, now: number, id: string, from?: SessionAt): EngineSql & { values: (string | number | null)[] } {
  const keys = patchKeys(patch);
  const set = [...keys.map((k) => `${PATCH_COLUMNS[k]} = ?`), 'updated_at = ?'].join(', ');
  const q = both(`UPDATE sessions SET ${set} WHERE id = ?${from ? ' AND step = ? AND status = ?' : ''} RETURNING *`);
  return { ...q, values: [...keys.map((k) => patch[k] ?? null), now, id, ...(from ? [from.step, from.status] : [])] };
}
