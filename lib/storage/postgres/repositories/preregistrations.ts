import type { DeviationRow, NewDeviation, PreregistrationRow, PreregistrationsRepo } from '../../contract/store';
import {
  preregistrationValues,
  toConditionCounts,
  toDeviationRow,
  toPreregistrationRow,
  type DeviationRaw,
  type PreregistrationRaw,
} from '../../rows/preregistrations';
import type { Runner } from '../connection';

/** Locked analysis plans and their deviations (migration 026). */
export class PgPreregistrations implements PreregistrationsRepo {
  constructor(private readonly db: Runner) {}

  async insertVersion(row: PreregistrationRow): Promise<boolean> {
    // The version must follow the latest; two nodes locking at once meet at the primary key, and one stores nothing.
    const n = await this.db.run(
      `INSERT INTO preregistrations (study_id, version, plan_hash, study_hash, locked_at, locked_by, document)
       SELECT $1::text, $2::integer, $3::text, $4::text, $5::bigint, $6::text, $7::text
       WHERE $2::integer = 1 + (SELECT COALESCE(MAX(version), 0) FROM preregistrations WHERE study_id = $1::text)
       ON CONFLICT (study_id, version) DO NOTHING`,
      [...preregistrationValues(row)],
    );
    return n === 1;
  }

  async latest(studyId: string): Promise<PreregistrationRow | undefined> {
    const r = await this.db.one<PreregistrationRaw>('SELECT * FROM preregistrations WHERE study_id = $1 ORDER BY version DESC LIMIT 1', [studyId]);
    return r && toPreregistrationRow(r);
  }

  async versions(studyId: string): Promise<PreregistrationRow[]> {
    return (await this.db.rows<PreregistrationRaw>('SELECT * FROM preregistrations WHERE study_id = $1 ORDER BY version', [studyId])).map(toPreregistrationRow);
  }

  async recordDeviation(d: NewDeviation): Promise<boolean> {
    const n = await this.db.run(
      `INSERT INTO preregistration_deviations (study_id, version, kind, file, field, message, detected_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (study_id, version, kind, file, field) DO NOTHING`,
      [d.studyId, d.version, d.kind, d.file, d.field, d.message, d.detectedAt],
    );
    return n === 1;
  }

  async deviations(studyId: string): Promise<DeviationRow[]> {
    return (await this.db.rows<DeviationRaw>('SELECT * FROM preregistration_deviations WHERE study_id = $1 ORDER BY detected_at, id', [studyId])).map(toDeviationRow);
  }

  async justify(studyId: string, id: number, justification: string, by: string, now: number): Promise<boolean> {
    const n = await this.db.run('UPDATE preregistration_deviations SET justification = $1, justified_at = $2, justified_by = $3 WHERE study_id = $4 AND id = $5', [
      justification,
      now,
      by,
      studyId,
      id,
    ]);
    return n === 1;
  }

  async countSessionsCreatedAfter(studyId: string, since: number): Promise<number> {
    const r = await this.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM sessions WHERE study_id = $1 AND is_pilot = 0 AND created_at > $2', [studyId, since]);
    return Number(r?.n ?? 0);
  }

  async countSessionsByCondition(studyId: string): Promise<Record<string, number>> {
    const rows = await this.db.rows<{ condition_id: string; n: number }>(
      'SELECT condition_id, COUNT(*) AS n FROM sessions WHERE study_id = $1 AND is_pilot = 0 AND consented_at IS NOT NULL GROUP BY condition_id ORDER BY condition_id',
      [studyId],
    );
    return toConditionCounts(rows);
  }
}
