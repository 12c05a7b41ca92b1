import { SqliteRepository } from '../statements';
import type { DeviationRow, NewDeviation, PreregistrationRow, PreregistrationsRepo } from '../../contract/store';
import {
  deviationValues,
  preregistrationValues,
  toConditionCounts,
  toDeviationRow,
  toPreregistrationRow,
  type DeviationRaw,
  type PreregistrationRaw,
} from '../../rows/preregistrations';
import { PREREGISTRATION_SQL as SQL } from '../../sql/preregistrations';
import type { Sync } from '../sync';

/** Locked analysis plans and their deviations (migration 026; the queries in ../../sql/preregistrations.ts). */
export class PreregistrationsRepository extends SqliteRepository implements Sync<PreregistrationsRepo> {
  insertVersion(row: PreregistrationRow): boolean {
    return this.q.run(SQL.insertVersion, ...preregistrationValues(row), row.version, row.studyId) === 1;
  }

  latest(studyId: string): PreregistrationRow | undefined {
    const r = this.q.one<PreregistrationRaw>(SQL.latest, studyId);
    return r && toPreregistrationRow(r);
  }

  versions(studyId: string): PreregistrationRow[] {
    return this.q.rows<PreregistrationRaw>(SQL.versions, studyId).map(toPreregistrationRow);
  }

  recordDeviation(d: NewDeviation): boolean {
    return this.q.run(SQL.recordDeviation, ...deviationValues(d)) === 1;
  }

  deviations(studyId: string): DeviationRow[] {
    return this.q.rows<DeviationRaw>(SQL.deviations, studyId).map(toDeviationRow);
  }

  justify(studyId: string, id: number, justification: string, by: string, now: number): boolean {
    return this.q.run(SQL.justify, justification, now, by, studyId, id) === 1;
  }

  countSessionsCreatedAfter(studyId: string, since: number): number {
    return Number(this.q.one<{ n: number }>(SQL.countSessionsCreatedAfter, studyId, since)?.n ?? 0);
  }

  countSessionsByCondition(studyId: string): Record<string, number> {
    return toConditionCounts(this.q.rows<{ condition_id: string; n: number }>(SQL.countSessionsByCondition, studyId));
  }

  countConsentedInCondition(studyId: string, conditionId: string, atMost: number): number {
    return Number(this.q.one<{ n: number }>(SQL.countConsentedInCondition, studyId, conditionId, atMost)?.n ?? 0);
  }
}
