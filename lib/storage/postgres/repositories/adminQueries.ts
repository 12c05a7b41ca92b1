import type { AdminQueriesRepo, ConditionOutcomeCount, JudgeSampleRow, SessionListRow } from '../../contract/store';
import { toConditionOutcomeCount, toJudgedInTask, toJudgeSample, toMonitorRow, type ConditionOutcomeCountRaw, type JudgedInTask, type JudgedInTaskRaw, type JudgeSampleRaw, type MonitorRaw } from '../../rows/adminQueries';
import { ADMIN_QUERY_SQL } from '../../sql/admin';
import type { Runner } from '../connection';

/** Read models for the researcher dashboard: study overview, live monitor, session detail. */
export class PgAdminQueries implements AdminQueriesRepo {
  constructor(private readonly db: Runner) {}

  async countsByConditionAndStatus(studyId: string): Promise<ConditionOutcomeCount[]> {
    return (await this.db.rows<ConditionOutcomeCountRaw>(ADMIN_QUERY_SQL.countsByConditionAndStatus.postgres, [studyId])).map(toConditionOutcomeCount);
  }

  /** The highest event id (an identity: grows with every append on any node). */
  async lastEventId(): Promise<number> {
    return (await this.db.one<{ id: number }>(ADMIN_QUERY_SQL.lastEventId.postgres))!.id;
  }

  async monitorRows(studyId: string, endedSince: number, limit = 500): Promise<SessionListRow[]> {
    return (await this.db.rows<MonitorRaw>(ADMIN_QUERY_SQL.monitorRows.postgres, [studyId, endedSince, limit])).map(toMonitorRow);
  }

  async listSessions(studyId: string, limit: number, offset: number): Promise<SessionListRow[]> {
    return (await this.db.rows<MonitorRaw>(ADMIN_QUERY_SQL.listSessions.postgres, [studyId, limit, offset])).map(toMonitorRow);
  }

  async judgeSamples(sessionId: string): Promise<JudgeSampleRow[]> {
    return (await this.db.rows<JudgeSampleRaw>(ADMIN_QUERY_SQL.judgeSamples.postgres, [sessionId])).map(toJudgeSample);
  }

  async judgedInTask(studyId: string, taskId: string): Promise<JudgedInTask[]> {
    return (await this.db.rows<JudgedInTaskRaw>(ADMIN_QUERY_SQL.judgedInTask.postgres, [studyId, taskId])).map(toJudgedInTask);
  }

  async quality(sessionId: string): Promise<number | null> {
    return (await this.db.one<{ quality: number | null }>(ADMIN_QUERY_SQL.quality.postgres, [sessionId]))?.quality ?? null;
  }
}
