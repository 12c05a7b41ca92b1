import type { AdminQueriesRepo, ConditionOutcomeCount, JudgeSampleRow, SessionListRow } from '../../contract/store';
import { judgedInTaskSql, judgeSamplesSql, MONITOR_SELECT, toConditionOutcomeCount, toJudgedInTask, toJudgeSample, toMonitorRow, type ConditionOutcomeCountRaw, type JudgedInTask, type JudgedInTaskRaw, type JudgeSampleRaw, type MonitorRaw } from '../../rows/adminQueries';
import type { Runner } from '../connection';

const JUDGE_SAMPLES_SQL = judgeSamplesSql('$1');
const JUDGED_IN_TASK_SQL = judgedInTaskSql('$1', '$2');

/** Read models for the researcher dashboard: study overview, live monitor, session detail. */
export class PgAdminQueries implements AdminQueriesRepo {
  constructor(private readonly db: Runner) {}

  async countsByConditionAndStatus(studyId: string): Promise<ConditionOutcomeCount[]> {
    const rows = await this.db.rows<ConditionOutcomeCountRaw>(
      'SELECT condition_id, status, is_pilot, COUNT(*) AS n FROM sessions WHERE study_id = $1 GROUP BY condition_id, status, is_pilot ORDER BY condition_id, status, is_pilot',
      [studyId],
    );
    return rows.map(toConditionOutcomeCount);
  }

  /** The highest event id (an identity: grows with every append on any node). */
  async lastEventId(): Promise<number> {
    return (await this.db.one<{ id: number }>('SELECT COALESCE(MAX(id), 0) AS id FROM events'))!.id;
  }

  async monitorRows(studyId: string, endedSince: number, limit = 500): Promise<SessionListRow[]> {
    const rows = await this.db.rows<MonitorRaw>(
      `${MONITOR_SELECT} WHERE s.study_id = $1 AND (s.status = 'active' OR s.ended_at >= $2) ORDER BY s.created_at DESC LIMIT $3`,
      [studyId, endedSince, limit],
    );
    return rows.map(toMonitorRow);
  }

  async listSessions(studyId: string, limit: number, offset: number): Promise<SessionListRow[]> {
    const rows = await this.db.rows<MonitorRaw>(`${MONITOR_SELECT} WHERE s.study_id = $1 ORDER BY s.created_at DESC, s.id LIMIT $2 OFFSET $3`, [
      studyId,
      limit,
      offset,
    ]);
    return rows.map(toMonitorRow);
  }

  async judgeSamples(sessionId: string): Promise<JudgeSampleRow[]> {
    return (await this.db.rows<JudgeSampleRaw>(JUDGE_SAMPLES_SQL, [sessionId])).map(toJudgeSample);
  }

  async judgedInTask(studyId: string, taskId: string): Promise<JudgedInTask[]> {
    return (await this.db.rows<JudgedInTaskRaw>(JUDGED_IN_TASK_SQL, [studyId, taskId])).map(toJudgedInTask);
  }

  async quality(sessionId: string): Promise<number | null> {
    return (await this.db.one<{ quality: number | null }>('SELECT quality FROM judge_quality WHERE session_id = $1', [sessionId]))?.quality ?? null;
  }
}
