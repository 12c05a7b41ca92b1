/** The `preregistrations` and `preregistration_deviations` rows (migration 026) as both engines return them, and their mapping. */
import { LockedPlan, type DeviationKind } from '../../../common/preregistration';
import type { DeviationRow, NewDeviation, PreregistrationRow } from '../contract/store';

export interface PreregistrationRaw {
  study_id: string;
  version: number;
  plan_hash: string;
  study_hash: string;
  locked_at: number;
  locked_by: string;
  document: string;
}

export const toPreregistrationRow = (r: PreregistrationRaw): PreregistrationRow => ({
  studyId: r.study_id,
  version: r.version,
  planHash: r.plan_hash,
  studyHash: r.study_hash,
  lockedAt: r.locked_at,
  lockedBy: r.locked_by,
  // Written by insertVersion from a validated LockedPlan; parsing again keeps a hand-edited row from passing silently.
  document: LockedPlan.parse(JSON.parse(r.document)),
});

/** Insert values in the column order study_id, version, plan_hash, study_hash, locked_at, locked_by, document. */
export const preregistrationValues = (row: PreregistrationRow) =>
  [row.studyId, row.version, row.planHash, row.studyHash, row.lockedAt, row.lockedBy, JSON.stringify(row.document)] as const;

export interface DeviationRaw {
  id: number;
  study_id: string;
  version: number;
  kind: string;
  file: string;
  field: string;
  message: string;
  detected_at: number;
  justification: string | null;
  justified_at: number | null;
  justified_by: string | null;
}

export const toDeviationRow = (r: DeviationRaw): DeviationRow => ({
  id: r.id,
  studyId: r.study_id,
  version: r.version,
  kind: r.kind as DeviationKind,
  file: r.file,
  field: r.field,
  message: r.message,
  detectedAt: r.detected_at,
  justification: r.justification,
  justifiedAt: r.justified_at,
  justifiedBy: r.justified_by,
});

/** Insert values in the column order study_id, version, kind, file, field, message, detected_at. */
export const deviationValues = (d: NewDeviation) => [d.studyId, d.version, d.kind, d.file, d.field, d.message, d.detectedAt] as const;

/** Rows of `SELECT condition_id, COUNT(*) AS n … GROUP BY condition_id` as a record. */
export const toConditionCounts = (rows: { condition_id: string; n: number }[]): Record<string, number> =>
  Object.fromEntries(rows.map((r) => [r.condition_id, Number(r.n)]));
