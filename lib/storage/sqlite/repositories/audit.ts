import type { SqliteDatabase } from '../database';
import type { AuditCounts, AuditEntry, AuditRepo } from '../../contract/store';
import { auditListLimit, auditValues, toAuditCounts, toAuditEntry, type AuditActionCountRaw, type AuditAppend, type AuditRaw } from '../../rows/audit';
import type { Sync } from '../sync';

/** The append-only audit log of researcher actions (migration 020). */
export class AuditRepository implements Sync<AuditRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  append(entry: AuditAppend): number {
    const r = this.db
      .prepare('INSERT INTO audit_log (at, actor, action, study_id, details) VALUES (?, ?, ?, ?, ?)')
      .run(...auditValues(entry));
    return Number(r.lastInsertRowid);
  }

  /** Newest first. With a study id: that study's entries plus installation-wide ones (login, …). */
  list(options: { studyId?: string; limit?: number } = {}): AuditEntry[] {
    const limit = auditListLimit(options.limit);
    const rows = (
      options.studyId === undefined
        ? this.db.prepare('SELECT * FROM audit_log ORDER BY id DESC LIMIT ?').all(limit)
        : this.db.prepare('SELECT * FROM audit_log WHERE study_id = ? OR study_id IS NULL ORDER BY id DESC LIMIT ?').all(options.studyId, limit)
    ) as AuditRaw[];
    return rows.map(toAuditEntry);
  }

  counts(studyId?: string): AuditCounts {
    const where = studyId === undefined ? '' : 'WHERE study_id = ? OR study_id IS NULL';
    const args = studyId === undefined ? [] : [studyId];
    const rows = this.db.prepare(`SELECT action, COUNT(*) AS n, MIN(at) AS first, MAX(at) AS last FROM audit_log ${where} GROUP BY action`).all(...args) as AuditActionCountRaw[];
    return toAuditCounts(rows);
  }
}
