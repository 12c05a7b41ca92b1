import { cachedStatement, type SqliteDatabase } from '../database';
import type { DeviationRow, NewDeviation, PreregistrationRow, PreregistrationsRepo } from '../../contract/store';
import {
  preregistrationValues,
  toConditionCounts,
  toDeviationRow,
  toPreregistrationRow,
  type DeviationRaw,
  type PreregistrationRaw,
} from '../../rows/preregistrations';
import type { Sync } from '../sync';

/** Locked analysis plans and their deviations (migration 026). */
export class PreregistrationsRepository implements Sync<PreregistrationsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  insertVersion(row: PreregistrationRow): boolean {
    // The version must follow the latest; the primary key refuses a second lock of the same version.
    const r = cachedStatement(
      this.db,
      `INSERT INTO preregistrations (study_id, version, plan_hash, study_hash, locked_at, locked_by, document)
       SELECT ?, ?, ?, ?, ?, ?, ?
       WHERE ? = 1 + (SELECT COALESCE(MAX(version), 0) FROM preregistrations WHERE study_id = ?)
       ON CONFLICT (study_id, version) DO NOTHING`,
    ).run(...preregistrationValues(row), row.version, row.studyId);
    return r.changes === 1;
  }

  latest(studyId: string): PreregistrationRow | undefined {
    const r = cachedStatement(this.db, 'SELECT * FROM preregistrations WHERE study_id = ? ORDER BY version DESC LIMIT 1').get(studyId) as PreregistrationRaw | undefined;
    return r && toPreregistrationRow(r);
  }

  versions(studyId: string): PreregistrationRow[] {
    return (cachedStatement(this.db, 'SELECT * FROM preregistrations WHERE study_id = ? ORDER BY version').all(studyId) as PreregistrationRaw[]).map(toPreregistrationRow);
  }

  recordDeviation(d: NewDeviation): boolean {
    const r = cachedStatement(
      this.db,
      `INSERT INTO preregistration_deviations (study_id, version, kind, file, field, message, detected_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (study_id, version, kind, file, field) DO NOTHING`,
    ).run(d.studyId, d.version, d.kind, d.file, d.field, d.message, d.detectedAt);
    return r.changes === 1;
  }

  deviations(studyId: string): DeviationRow[] {
    return (cachedStatement(this.db, 'SELECT * FROM preregistration_deviations WHERE study_id = ? ORDER BY detected_at, id').all(studyId) as DeviationRaw[]).map(toDeviationRow);
  }

  justify(studyId: string, id: number, justification: string, by: string, now: number): boolean {
    const r = cachedStatement(this.db, 'UPDATE preregistration_deviations SET justification = ?, justified_at = ?, justified_by = ? WHERE study_id = ? AND id = ?').run(
      justification,
      now,
      by,
      studyId,
      id,
    );
    return r.changes === 1;
  }

  countSessionsCreatedAfter(studyId: string, since: number): number {
    const r = cachedStatement(this.db, 'SELECT COUNT(*) AS n FROM sessions WHERE study_id = ? AND is_pilot = 0 AND created_at > ?').get(studyId, since) as { n: number };
    return r.n;
  }

  countSessionsByCondition(studyId: string): Record<string, number> {
    const rows = cachedStatement(
      this.db,
      'SELECT condition_id, COUNT(*) AS n FROM sessions WHERE study_id = ? AND is_pilot = 0 AND consented_at IS NOT NULL GROUP BY condition_id ORDER BY condition_id',
    ).all(studyId) as { condition_id: string; n: number }[];
    return toConditionCounts(rows);
  }
}
