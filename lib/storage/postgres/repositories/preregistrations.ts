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
import type { Runner } from '../connection';

/** Locked analysis plans and their deviations (migration 026; the queries in ../../sql/preregistrations.ts). */
export class PgPreregistrations implements PreregistrationsRepo {
  constructor(private readonly db: Runner) {}

  async insertVersion(row: PreregistrationRow): Promise<boolean> {
    return (await this.db.run(SQL.insertVersion.postgres, [...preregistrationValues(row), row.version, row.studyId])) === 1;
  }

  async latest(studyId: string): Promise<PreregistrationRow | undefined> {
    const r = await this.db.one<PreregistrationRaw>(SQL.latest.postgres, [studyId]);
    return r && toPreregistrationRow(r);
  }

  async versions(studyId: string): Promise<PreregistrationRow[]> {
    return (await this.db.rows<PreregistrationRaw>(SQL.versions.postgres, [studyId])).map(toPreregistrationRow);
  }

  async recordDeviation(d: NewDeviation): Promise<boolean> {
    return (await this.db.run(SQL.recordDeviation.postgres, [...deviationValues(d)])) === 1;
  }

  async deviations(studyId: string): Promise<DeviationRow[]> {
    return (await this.db.rows<DeviationRaw>(SQL.deviations.postgres, [studyId])).map(toDeviationRow);
  }

  async justify(studyId: string, id: number, justification: string, by: string, now: number): Promise<boolean> {
    return (await this.db.run(SQL.justify.postgres, [justification, now, by, studyId, id])) === 1;
  }

  async countSessionsCreatedAfter(studyId: string, since: number): Promise<number> {
    return Number((await this.db.one<{ n: number }>(SQL.countSessionsCreatedAfter.postgres, [studyId, since]))?.n ?? 0);
  }

  async countSessionsByCondition(studyId: string): Promise<Record<string, number>> {
    return toConditionCounts(await this.db.rows<{ condition_id: string; n: number }>(SQL.countSessionsByCondition.postgres, [studyId]));
  }

  async countConsentedInCondition(studyId: string, conditionId: string, atMost: number): Promise<number> {
    return Number((await this.db.one<{ n: number }>(SQL.countConsentedInCondition.postgres, [studyId, conditionId, atMost]))?.n ?? 0);
  }
}
