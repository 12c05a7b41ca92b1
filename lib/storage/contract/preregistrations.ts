/**
 * Pre-registration locks and the deviations found after them (lib/preregistration/, docs/preregistration.md).
 * Part of the storage contract: lib/storage/contract/store.ts re-exports everything here, and code imports it
 * from there. A locked version is never updated or deleted; a new plan is a new version beside it.
 */
import type { DeviationKind, LockedPlan } from '../../../common/preregistration';

export interface PreregistrationRow {
  studyId: string;
  version: number;
  planHash: string;
  studyHash: string;
  lockedAt: number;
  lockedBy: string;
  /** The whole locked version (plan, fingerprint, hashes) as written to preregistration.json. */
  document: LockedPlan;
}

export interface DeviationRow {
  id: number;
  studyId: string;
  version: number;
  kind: DeviationKind;
  file: string;
  field: string;
  message: string;
  detectedAt: number;
  justification: string | null;
  justifiedAt: number | null;
  justifiedBy: string | null;
}

export type NewDeviation = Pick<DeviationRow, 'studyId' | 'version' | 'kind' | 'file' | 'field' | 'message' | 'detectedAt'>;

export interface PreregistrationsRepo {
  /**
   * Stores `row` as the study's next version when it is exactly one above the latest (the caller read the latest
   * first); false when another lock took that version meanwhile (nothing stored).
   */
  insertVersion(row: PreregistrationRow): Promise<boolean>;
  /** The latest locked version, undefined when the study was never locked. */
  latest(studyId: string): Promise<PreregistrationRow | undefined>;
  /** Every locked version of the study, oldest first. */
  versions(studyId: string): Promise<PreregistrationRow[]>;
  /** Records a deviation unless one with the same study, version, kind, file and field exists; true when recorded now. */
  recordDeviation(d: NewDeviation): Promise<boolean>;
  /** The study's deviations, oldest first (by detection time, then version, kind, file and field). */
  deviations(studyId: string): Promise<DeviationRow[]>;
  /** Sets (or replaces) the researcher's justification of a deviation of that study; false when there is none with that id. */
  justify(studyId: string, id: number, justification: string, by: string, now: number): Promise<boolean>;
  /** Non-pilot sessions of the study created after `since` (ms): sessions collected after a stop date. */
  countSessionsCreatedAfter(studyId: string, since: number): Promise<number>;
  /** Consented non-pilot sessions per condition (finished or not): the sample against a stopping rule. */
  countSessionsByCondition(studyId: string): Promise<Record<string, number>>;
  /** The same count for one condition, at most `atMost` (the stopping-rule check at each join: "are there n yet?"). */
  countConsentedInCondition(studyId: string, conditionId: string, atMost: number): Promise<number>;
}
