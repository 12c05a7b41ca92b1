import { cachedStatement, type SqliteDatabase } from '../database';
import type { SessionStatus, Step } from '../../../../common/session';
import type { SessionPatch, SessionRow, SessionsRepo } from '../../contract/store';
import type { Sync } from '../sync';

interface Raw {
  id: string;
  study_id: string;
  task_id: string;
  condition_id: string;
  step: Step;
  status: SessionStatus;
  is_pilot: number;
  consent_version: string | null;
  created_at: number;
  consented_at: number | null;
  submitted_at: number | null;
  ended_at: number | null;
  updated_at: number;
}
const toRow = (r: Raw): SessionRow => ({
  id: r.id,
  studyId: r.study_id,
  taskId: r.task_id,
  conditionId: r.condition_id,
  step: r.step,
  status: r.status,
  isPilot: r.is_pilot === 1,
  consentVersion: r.consent_version,
  createdAt: r.created_at,
  consentedAt: r.consented_at,
  submittedAt: r.submitted_at,
  endedAt: r.ended_at,
  updatedAt: r.updated_at,
});

const COLUMNS: Record<keyof SessionPatch, string> = {
  step: 'step',
  status: 'status',
  consentVersion: 'consent_version',
  consentedAt: 'consented_at',
  submittedAt: 'submitted_at',
  endedAt: 'ended_at',
};

export class SessionsRepository implements Sync<SessionsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  insert(s: Pick<SessionRow, 'id' | 'studyId' | 'taskId' | 'conditionId' | 'isPilot' | 'createdAt'>): SessionRow {
    cachedStatement(
      this.db,
      `INSERT INTO sessions (id, study_id, task_id, condition_id, step, status, is_pilot, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'consent', 'active', ?, ?, ?)`,
    ).run(s.id, s.studyId, s.taskId, s.conditionId, s.isPilot ? 1 : 0, s.createdAt, s.createdAt);
    return this.get(s.id)!;
  }

  get(id: string): SessionRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM sessions WHERE id = ?').get(id) as Raw | undefined;
    return r && toRow(r);
  }

  /** A transaction on SQLite holds the write lock (BEGIN IMMEDIATE), so a plain read already serialises. */
  getForUpdate(id: string): SessionRow | undefined {
    return this.get(id);
  }

  listByStudy(studyId: string): SessionRow[] {
    return (cachedStatement(this.db, 'SELECT * FROM sessions WHERE study_id = ? ORDER BY created_at, id').all(studyId) as Raw[]).map(toRow);
  }

  update(id: string, patch: SessionPatch, now: number): SessionRow {
    const keys = Object.keys(patch) as (keyof SessionPatch)[];
    const sets = keys.map((k) => `${COLUMNS[k]} = ?`);
    const values = keys.map((k) => patch[k] ?? null);
    cachedStatement(this.db, `UPDATE sessions SET ${[...sets, 'updated_at = ?'].join(', ')} WHERE id = ?`).run(...values, now, id);
    return this.get(id)!;
  }

  /** Number of non-pilot sessions per condition (conditions with none are absent); see SessionsRepo. */
  countByCondition(studyId: string, unconsentedSince?: number): Map<string, number> {
    return this.countBy('condition_id', studyId, unconsentedSince);
  }

  /** Number of non-pilot sessions per task (tasks with none are absent); see SessionsRepo. */
  countByTask(studyId: string, unconsentedSince?: number): Map<string, number> {
    return this.countBy('task_id', studyId, unconsentedSince);
  }

  countActive(studyId: string): number {
    return (cachedStatement(this.db, `SELECT COUNT(*) AS n FROM sessions WHERE study_id = ? AND status = 'active'`).get(studyId) as { n: number }).n;
  }

  private countBy(column: 'condition_id' | 'task_id', studyId: string, unconsentedSince: number | undefined): Map<string, number> {
    const rows = (
      unconsentedSince === undefined
        ? cachedStatement(this.db, `SELECT ${column} AS k, COUNT(*) AS n FROM sessions WHERE study_id = ? AND is_pilot = 0 GROUP BY ${column}`).all(studyId)
        : cachedStatement(
            this.db,
            `SELECT ${column} AS k, COUNT(*) AS n FROM sessions WHERE study_id = ? AND is_pilot = 0
               AND (consented_at IS NOT NULL OR (status = 'active' AND created_at >= ?)) GROUP BY ${column}`,
          ).all(studyId, unconsentedSince)
    ) as { k: string; n: number }[];
    return new Map(rows.map((r) => [r.k, r.n]));
  }

  /** Active sessions whose deadline may have passed (consented before `consentedBefore`). */
  listActiveConsentedBefore(consentedBefore: number): SessionRow[] {
    return (
      cachedStatement(this.db, `SELECT * FROM sessions WHERE status = 'active' AND consented_at IS NOT NULL AND consented_at < ?`)
        .all(consentedBefore) as Raw[]
    ).map(toRow);
  }

  count(studyId?: string): number {
    const r = (studyId === undefined
      ? cachedStatement(this.db, 'SELECT COUNT(*) AS n FROM sessions').get()
      : cachedStatement(this.db, 'SELECT COUNT(*) AS n FROM sessions WHERE study_id = ?').get(studyId)) as { n: number };
    return r.n;
  }

  storageBytes(id: string): number {
    const r = cachedStatement(
      this.db,
      `SELECT s.stored_bytes + COALESCE((SELECT length(CAST(d.fields AS BLOB)) FROM artifact_drafts d WHERE d.session_id = s.id), 0) AS bytes
         FROM sessions s WHERE s.id = ?`,
    ).get(id) as { bytes: number } | undefined;
    return r?.bytes ?? 0;
  }
}
