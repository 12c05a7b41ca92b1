import type { AuditCounts, AuditEntry, AuditRepo } from '../../contract/store';
import { auditListLimit, auditValues, toAuditCounts, toAuditEntry, type AuditActionCountRaw, type AuditAppend, type AuditRaw } from '../../rows/audit';
import type { Runner } from '../connection';

/** The append-only audit log of researcher actions (migration 020; a trigger refuses UPDATE). */
export class PgAudit implements AuditRepo {
  constructor(private readonly db: Runner) {}

  async append(entry: AuditAppend): Promise<number> {
    const r = await this.db.one<{ id: number }>(
      'INSERT INTO audit_log (at, actor, action, study_id, details) VALUES ($1, $2, $3, $4, $5) RETURNING id',
      auditValues(entry),
    );
    return r!.id;
  }

  async list(options: { studyId?: string; limit?: number } = {}): Promise<AuditEntry[]> {
    return (await listAudit(this.db, options)).map(toAuditEntry);
  }

  counts(studyId?: string): Promise<AuditCounts> {
    return auditCounts(this.db, studyId);
  }
}

/** Shared with the export snapshot, which reads the log on its own transaction. */
export async function listAudit(db: Runner, options: { studyId?: string; limit?: number }): Promise<AuditRaw[]> {
  const limit = auditListLimit(options.limit);
  return options.studyId === undefined
    ? db.rows<AuditRaw>('SELECT * FROM audit_log ORDER BY id DESC LIMIT $1', [limit])
    : db.rows<AuditRaw>('SELECT * FROM audit_log WHERE study_id = $1 OR study_id IS NULL ORDER BY id DESC LIMIT $2', [options.studyId, limit]);
}

export async function auditCounts(db: Runner, studyId?: string): Promise<AuditCounts> {
  const sql = `SELECT action, COUNT(*) AS n, MIN(at) AS first, MAX(at) AS last FROM audit_log
    ${studyId === undefined ? '' : 'WHERE study_id = $1 OR study_id IS NULL'} GROUP BY action ORDER BY action`;
  return toAuditCounts(await db.rows<AuditActionCountRaw>(sql, studyId === undefined ? [] : [studyId]));
}
