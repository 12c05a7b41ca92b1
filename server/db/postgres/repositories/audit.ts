import type { AuditCounts, AuditEntry, AuditRepo } from '../../storeInterface';
import type { Runner } from '../connection';

interface Raw {
  id: number;
  at: number;
  actor: string;
  action: string;
  study_id: string | null;
  details: string;
}
const toEntry = (r: Raw): AuditEntry => ({
  id: r.id,
  at: r.at,
  actor: r.actor,
  action: r.action,
  studyId: r.study_id,
  details: JSON.parse(r.details) as Record<string, unknown>,
});

/** The append-only audit log of researcher actions (migration 020; a trigger refuses UPDATE). */
export class PgAudit implements AuditRepo {
  constructor(private readonly db: Runner) {}

  async append(entry: { at: number; actor: string; action: string; studyId: string | null; details?: Record<string, unknown> }): Promise<number> {
    const r = await this.db.one<{ id: number }>('INSERT INTO audit_log (at, actor, action, study_id, details) VALUES ($1, $2, $3, $4, $5) RETURNING id', [
      entry.at,
      entry.actor,
      entry.action,
      entry.studyId,
      JSON.stringify(entry.details ?? {}),
    ]);
    return r!.id;
  }

  async list(options: { studyId?: string; limit?: number } = {}): Promise<AuditEntry[]> {
    return (await listAudit(this.db, options)).map(toEntry);
  }

  counts(studyId?: string): Promise<AuditCounts> {
    return auditCounts(this.db, studyId);
  }
}

/** Shared with the export snapshot, which reads the log on its own transaction. */
export async function listAudit(db: Runner, options: { studyId?: string; limit?: number }): Promise<Raw[]> {
  const limit = Math.min(Math.max(options.limit ?? 100, 1), 10_000);
  return options.studyId === undefined
    ? db.rows<Raw>('SELECT * FROM audit_log ORDER BY id DESC LIMIT $1', [limit])
    : db.rows<Raw>('SELECT * FROM audit_log WHERE study_id = $1 OR study_id IS NULL ORDER BY id DESC LIMIT $2', [options.studyId, limit]);
}
export const auditEntry = toEntry;

export async function auditCounts(db: Runner, studyId?: string): Promise<AuditCounts> {
  const sql = `SELECT action, COUNT(*) AS n, MIN(at) AS first, MAX(at) AS last FROM audit_log
    ${studyId === undefined ? '' : 'WHERE study_id = $1 OR study_id IS NULL'} GROUP BY action ORDER BY action`;
  const rows = await db.rows<{ action: string; n: number; first: number; last: number }>(sql, studyId === undefined ? [] : [studyId]);
  const byAction: Record<string, number> = {};
  let total = 0;
  let firstAt: number | null = null;
  let lastAt: number | null = null;
  for (const r of rows) {
    byAction[r.action] = r.n;
    total += r.n;
    firstAt = firstAt === null ? r.first : Math.min(firstAt, r.first);
    lastAt = lastAt === null ? r.last : Math.max(lastAt, r.last);
  }
  return { total, byAction, firstAt, lastAt };
}
