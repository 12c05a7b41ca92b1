/**
 * Locked analysis plans and their deviations (preregistrations, preregistration_deviations: migration 026) and the
 * session counts the stopping rule is checked against, on both engines. Parameter lists: rows/preregistrations.ts.
 */
import { both } from './engineSql';

export const PREREGISTRATION_SQL = {
  /**
   * The next version only when it is exactly one above the latest (the caller read the latest first); the primary
   * key refuses a second lock of the same version (two nodes locking at once: one stores nothing). The casts give
   * PostgreSQL the parameters' types (a SELECT list's parameters have none) and change nothing on SQLite.
   * Parameters: preregistrationValues(row), then the version and the study again.
   */
  insertVersion: both(`INSERT INTO preregistrations (study_id, version, plan_hash, study_hash, locked_at, locked_by, document)
       SELECT CAST(? AS TEXT), CAST(? AS INTEGER), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT)
       WHERE CAST(? AS INTEGER) = 1 + (SELECT COALESCE(MAX(version), 0) FROM preregistrations WHERE study_id = CAST(? AS TEXT))
       ON CONFLICT (study_id, version) DO NOTHING`),
  latest: both('SELECT * FROM preregistrations WHERE study_id = ? ORDER BY version DESC LIMIT 1'),
  versions: both('SELECT * FROM preregistrations WHERE study_id = ? ORDER BY version'),
  /** Parameters: deviationValues(d). */
  recordDeviation: both(`INSERT INTO preregistration_deviations (study_id, version, kind, file, field, message, detected_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (study_id, version, kind, file, field) DO NOTHING`),
  /** Oldest first; ties on the time in the order of their natural key (never the insertion order). */
  deviations: both('SELECT * FROM preregistration_deviations WHERE study_id = ? ORDER BY detected_at, version, kind, file, field'),
  /** Parameters: justification, justified_at, justified_by, study, id. */
  justify: both('UPDATE preregistration_deviations SET justification = ?, justified_at = ?, justified_by = ? WHERE study_id = ? AND id = ?'),
  countSessionsCreatedAfter: both('SELECT COUNT(*) AS n FROM sessions WHERE study_id = ? AND is_pilot = 0 AND created_at > ?'),
  countSessionsByCondition: both(
    'SELECT condition_id, COUNT(*) AS n FROM sessions WHERE study_id = ? AND is_pilot = 0 AND consented_at IS NOT NULL GROUP BY condition_id ORDER BY condition_id',
  ),
  /**
   * One condition's count of the same, up to a cap (the join-time stopping-rule check asks "are there n yet?", so it
   * reads at most n rows of index sessions_study, however large the study). Parameters: study, condition, cap.
   */
  countConsentedInCondition: both(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM sessions WHERE study_id = ? AND condition_id = ? AND is_pilot = 0 AND consented_at IS NOT NULL LIMIT ?) AS capped`),
} as const;
