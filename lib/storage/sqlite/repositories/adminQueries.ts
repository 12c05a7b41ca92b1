import type { SqliteDatabase } from '../database';
import type { AdminQueriesRepo, ConditionOutcomeCount, JudgeSampleRow, SessionListRow } from '../../contract/store';
import { judgedInTaskSql, judgeSamplesSql, MONITOR_SELECT, toConditionOutcomeCount, toJudgedInTask, toJudgeSample, toMonitorRow, type ConditionOutcomeCountRaw, type JudgedInTask, type JudgedInTaskRaw, type JudgeSampleRaw, type MonitorRaw } from '../../rows/adminQueries';
import type { Sync } from '../sync';

const JUDGE_SAMPLES_SQL = judgeSamplesSql('?');
const JUDGED_IN_TASK_SQL = judgedInTaskSql('?', '?');

/** Read models for the researcher dashboard: study overview, live monitor, session detail. */
export class AdminQueriesRepository implements Sync<AdminQueriesRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  private hasTable(name: string): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  }

  /** Session counts by condition, outcome and pilot flag. */
  countsByConditionAndStatus(studyId: string): ConditionOutcomeCount[] {
    const rows = this.db
      .prepare('SELECT condition_id, status, is_pilot, COUNT(*) AS n FROM sessions WHERE study_id = ? GROUP BY condition_id, status, is_pilot ORDER BY condition_id, status')
      .all(studyId) as ConditionOutcomeCountRaw[];
    return rows.map(toConditionOutcomeCount);
  }

  /** Highest event row id: changes whenever anything happens in any session (cheap change detector). */
  lastEventId(): number {
    return (this.db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM events').get() as { id: number }).id;
  }

  /** Active sessions plus those that ended since `endedSince`, newest first (bounded by `limit`). */
  monitorRows(studyId: string, endedSince: number, limit = 500): SessionListRow[] {
    const rows = this.db
      .prepare(`${MONITOR_SELECT} WHERE s.study_id = ? AND (s.status = 'active' OR s.ended_at >= ?) ORDER BY s.created_at DESC LIMIT ?`)
      .all(studyId, endedSince, limit) as MonitorRaw[];
    return rows.map(toMonitorRow);
  }

  /** A page of the study's sessions, newest first. */
  listSessions(studyId: string, limit: number, offset: number): SessionListRow[] {
    const rows = this.db.prepare(`${MONITOR_SELECT} WHERE s.study_id = ? ORDER BY s.created_at DESC, s.id LIMIT ? OFFSET ?`).all(studyId, limit, offset) as MonitorRaw[];
    return rows.map(toMonitorRow);
  }

  judgeSamples(sessionId: string): JudgeSampleRow[] {
    if (!this.hasTable('judgements')) return [];
    return (this.db.prepare(JUDGE_SAMPLES_SQL).all(sessionId) as JudgeSampleRaw[]).map(toJudgeSample);
  }

  /** Judged non-pilot sessions of one task with their token sums (for Pz within task). */
  judgedInTask(studyId: string, taskId: string): JudgedInTask[] {
    if (!this.hasTable('judge_quality')) return [];
    return (this.db.prepare(JUDGED_IN_TASK_SQL).all(studyId, taskId) as JudgedInTaskRaw[]).map(toJudgedInTask);
  }

  quality(sessionId: string): number | null {
    if (!this.hasTable('judge_quality')) return null;
    const r = this.db.prepare('SELECT quality FROM judge_quality WHERE session_id = ?').get(sessionId) as { quality: number | null } | undefined;
    return r?.quality ?? null;
  }
}
