import type { AdminQueriesRepo, ConditionOutcomeCount, JudgeSampleRow, SessionListRow } from '../../contract/store';
import { toConditionOutcomeCount, toJudgedInTask, toJudgeSample, toMonitorRow, type ConditionOutcomeCountRaw, type JudgedInTask, type JudgedInTaskRaw, type JudgeSampleRaw, type MonitorRaw } from '../../rows/adminQueries';
import { ADMIN_QUERY_SQL } from '../../sql/admin';
import { SqliteRepository } from '../statements';
import type { Sync } from '../sync';

/** Read models for the researcher dashboard: study overview, live monitor, session detail. */
export class AdminQueriesRepository extends SqliteRepository implements Sync<AdminQueriesRepo> {
  /** Session counts by condition, outcome and pilot flag. */
  countsByConditionAndStatus(studyId: string): ConditionOutcomeCount[] {
    return this.q.rows<ConditionOutcomeCountRaw>(ADMIN_QUERY_SQL.countsByConditionAndStatus, studyId).map(toConditionOutcomeCount);
  }

  /** Highest event row id: changes whenever anything happens in any session (cheap change detector). */
  lastEventId(): number {
    return this.q.one<{ id: number }>(ADMIN_QUERY_SQL.lastEventId)!.id;
  }

  /** Active sessions plus those that ended since `endedSince`, newest first (bounded by `limit`). */
  monitorRows(studyId: string, endedSince: number, limit = 500): SessionListRow[] {
    return this.q.rows<MonitorRaw>(ADMIN_QUERY_SQL.monitorRows, studyId, endedSince, limit).map(toMonitorRow);
  }

  /** A page of the study's sessions, newest first. */
  listSessions(studyId: string, limit: number, offset: number): SessionListRow[] {
    return this.q.rows<MonitorRaw>(ADMIN_QUERY_SQL.listSessions, studyId, limit, offset).map(toMonitorRow);
  }

  judgeSamples(sessionId: string): JudgeSampleRow[] {
    return this.q.rows<JudgeSampleRaw>(ADMIN_QUERY_SQL.judgeSamples, sessionId).map(toJudgeSample);
  }

  /** Judged non-pilot sessions of one task with their token sums (for Pz within task). */
  judgedInTask(studyId: string, taskId: string): JudgedInTask[] {
    return this.q.rows<JudgedInTaskRaw>(ADMIN_QUERY_SQL.judgedInTask, studyId, taskId).map(toJudgedInTask);
  }

  quality(sessionId: string): number | null {
    return this.q.one<{ quality: number | null }>(ADMIN_QUERY_SQL.quality, sessionId)?.quality ?? null;
  }
}
