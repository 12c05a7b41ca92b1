import type { AuditCounts, AuditEntry, AuditRepo } from '../../contract/store';
import { auditListLimit, auditValues, toAuditCounts, toAuditEntry, type AuditActionCountRaw, type AuditAppend, type AuditRaw } from '../../rows/audit';
import { AUDIT_SQL } from '../../sql/admin';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

/** The append-only audit log of researcher actions (migration 020). */
export class AuditRepository extends SqliteRepository implements Sync<AuditRepo> {
  append(entry: AuditAppend): number {
    return this.q.one<{ id: number }>(AUDIT_SQL.append, ...auditValues(entry))!.id;
  }

  /** Newest first. With a study id: that study's entries plus installation-wide ones (login, …). */
  list(options: { studyId?: string; limit?: number } = {}): AuditEntry[] {
    const limit = auditListLimit(options.limit);
    const rows =
      options.studyId === undefined ? this.q.rows<AuditRaw>(AUDIT_SQL.listAll, limit) : this.q.rows<AuditRaw>(AUDIT_SQL.listStudy, options.studyId, limit);
    return rows.map(toAuditEntry);
  }

  counts(studyId?: string): AuditCounts {
    const rows =
      studyId === undefined ? this.q.rows<AuditActionCountRaw>(AUDIT_SQL.countsAll) : this.q.rows<AuditActionCountRaw>(AUDIT_SQL.countsStudy, studyId);
    return toAuditCounts(rows);
  }
}
