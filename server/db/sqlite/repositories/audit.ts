import type { SqliteDatabase } from '../../database';
import type { AuditCounts, AuditEntry, AuditRepo } from '../../storeInterface';
import type { Sync } from '../sync';


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

/** The append-only audit log of researcher actions (migration 020). */
export class AuditRepository implements Sync<AuditRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  append(entry: { at: number; actor: string; action: string; studyId: string | null; details?: Record<string, unknown> }): number {
    const r = this.db
      .prepare('INSERT INTO audit_log (at, actor, action, study_id, details) VALUES (?, ?, ?, ?, ?)')
      .run(entry.at, entry.actor, entry.action, entry.studyId, JSON.stringify(entry.details ?? {}));
    return Number(r.lastInsertRowid);
  }

  /** Newest first. With a study id: that study's entries plus installation-wide ones (login, …). */
  list(options: { studyId?: string; limit?: number } = {}): AuditEntry[] {
    const limit = Math.min(Math.max(options.limit ?? 100, 1), 10_000);
    const rows = (
      options.studyId === undefined
        ? this.db.prepare('SELECT * FROM audit_log ORDER BY id DESC LIMIT ?').all(limit)
        : this.db.prepare('SELECT * FROM audit_log WHERE study_id = ? OR study_id IS NULL ORDER BY id DESC LIMIT ?').all(options.studyId, limit)
    ) as Raw[];
    return rows.map(toEntry);
  }

  counts(studyId?: string): AuditCounts {
    const where = studyId === undefined ? '' : 'WHERE study_id = ? OR study_id IS NULL';
    const args = studyId === undefined ? [] : [studyId];
    const rows = this.db.prepare(`SELECT action, COUNT(*) AS n, MIN(at) AS first, MAX(at) AS last FROM audit_log ${where} GROUP BY action`).all(...args) as {
      action: string;
      n: number;
      first: number;
      last: number;
    }[];
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
}
