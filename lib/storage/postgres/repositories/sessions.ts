import type { SessionStatus, Step } from '../../../../common/session';
import type { SessionPatch, SessionRow, SessionsRepo } from '../../contract/store';
import type { Runner } from '../connection';

export interface SessionRaw {
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
export const sessionFromRow = (r: SessionRaw): SessionRow => ({
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

export class PgSessions implements SessionsRepo {
  constructor(private readonly db: Runner) {}

  async insert(s: Pick<SessionRow, 'id' | 'studyId' | 'taskId' | 'conditionId' | 'isPilot' | 'createdAt'>): Promise<SessionRow> {
    const r = await this.db.one<SessionRaw>(
      `INSERT INTO sessions (id, study_id, task_id, condition_id, step, status, is_pilot, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'consent', 'active', $5, $6, $6) RETURNING *`,
      [s.id, s.studyId, s.taskId, s.conditionId, s.isPilot ? 1 : 0, s.createdAt],
    );
    return sessionFromRow(r!);
  }

  async get(id: string): Promise<SessionRow | undefined> {
    const r = await this.db.one<SessionRaw>('SELECT * FROM sessions WHERE id = $1', [id]);
    return r && sessionFromRow(r);
  }

  /**
   * FOR NO KEY UPDATE: the same lock tandem_append_event takes, so a state change and the events it appends
   * serialise per session, while foreign-key checks of rows referencing the session are not blocked.
   * Outside a transaction the lock ends with the statement (as the contract allows).
   */
  async getForUpdate(id: string): Promise<SessionRow | undefined> {
    const r = await this.db.one<SessionRaw>('SELECT * FROM sessions WHERE id = $1 FOR NO KEY UPDATE', [id]);
    return r && sessionFromRow(r);
  }

  async listByStudy(studyId: string): Promise<SessionRow[]> {
    return (await this.db.rows<SessionRaw>('SELECT * FROM sessions WHERE study_id = $1 ORDER BY created_at, id', [studyId])).map(sessionFromRow);
  }

  async update(id: string, patch: SessionPatch, now: number): Promise<SessionRow> {
    const keys = (Object.keys(patch) as (keyof SessionPatch)[]).filter((k) => k in COLUMNS);
    const sets = keys.map((k, i) => `${COLUMNS[k]} = $${i + 1}`);
    const values = keys.map((k) => patch[k] ?? null);
    const r = await this.db.one<SessionRaw>(
      `UPDATE sessions SET ${[...sets, `updated_at = $${keys.length + 1}`].join(', ')} WHERE id = $${keys.length + 2} RETURNING *`,
      [...values, now, id],
    );
    if (!r) throw new Error(`session ${id} does not exist`);
    return sessionFromRow(r);
  }

  private async countBy(column: 'condition_id' | 'task_id', studyId: string, unconsentedSince: number | undefined): Promise<Map<string, number>> {
    const rows =
      unconsentedSince === undefined
        ? await this.db.rows<{ k: string; n: number }>(
            `SELECT ${column} AS k, COUNT(*) AS n FROM sessions WHERE study_id = $1 AND is_pilot = 0 GROUP BY ${column}`,
            [studyId],
          )
        : await this.db.rows<{ k: string; n: number }>(
            `SELECT ${column} AS k, COUNT(*) AS n FROM sessions WHERE study_id = $1 AND is_pilot = 0
               AND (consented_at IS NOT NULL OR (status = 'active' AND created_at >= $2)) GROUP BY ${column}`,
            [studyId, unconsentedSince],
          );
    return new Map(rows.map((r) => [r.k, r.n]));
  }

  countByCondition(studyId: string, unconsentedSince?: number): Promise<Map<string, number>> {
    return this.countBy('condition_id', studyId, unconsentedSince);
  }

  countByTask(studyId: string, unconsentedSince?: number): Promise<Map<string, number>> {
    return this.countBy('task_id', studyId, unconsentedSince);
  }

  async countActive(studyId: string): Promise<number> {
    return (await this.db.one<{ n: number }>(`SELECT COUNT(*) AS n FROM sessions WHERE study_id = $1 AND status = 'active'`, [studyId]))!.n;
  }

  async listActiveConsentedBefore(consentedBefore: number): Promise<SessionRow[]> {
    return (
      await this.db.rows<SessionRaw>(`SELECT * FROM sessions WHERE status = 'active' AND consented_at IS NOT NULL AND consented_at < $1`, [consentedBefore])
    ).map(sessionFromRow);
  }

  async count(studyId?: string): Promise<number> {
    const r =
      studyId === undefined
        ? await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM sessions')
        : await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM sessions WHERE study_id = $1', [studyId]);
    return r!.n;
  }

  async storageBytes(id: string): Promise<number> {
    const r = await this.db.one<{ bytes: number }>(
      `SELECT s.stored_bytes + COALESCE((SELECT octet_length(d.fields) FROM artifact_drafts d WHERE d.session_id = s.id), 0) AS bytes
         FROM sessions s WHERE s.id = $1`,
      [id],
    );
    return r?.bytes ?? 0;
  }
}
