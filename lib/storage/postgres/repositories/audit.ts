import type { AuditCounts, AuditEntry, AuditRepo } from '../../contract/store';
import { auditListLimit, auditValues, toAuditCounts, toAuditEntry, type AuditActionCountRaw, type AuditAppend, type AuditRaw } from '../../rows/audit';
import { AUDIT_SQL } from '../../sql/admin';
import type { Runner } from '../connection';

/** The append-only audit log of researcher actions (migration 020; a trigger refuses UPDATE). */
export class PgAudit implements AuditRepo {
  constructor(private readonly db: Runner) {}

  async append(entry: AuditAppend): Promise<number> {
    return (await this.db.one<{ id: number }>(AUDIT_SQL.append.postgres, auditValues(entry)))!.id;
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
    ? db.rows<AuditRaw>(AUDIT_SQL.listAll.postgres, [limit])
    : db.rows<AuditRaw>(AUDIT_SQL.listStudy.postgres, [options.studyId, limit]);
}

export async function auditCounts(db: Runner, studyId?: string): Promise<AuditCounts> {
  const rows =
    studyId === undefined
      ? await db.rows<AuditActionCountRaw>(AUDIT_SQL.countsAll.postgres)
      : await db.rows<AuditActionCountRaw>(AUDIT_SQL.countsStudy.postgres, [studyId]);
  return toAuditCounts(rows);
}
