import type { SqliteDatabase } from '../../database';
import type { AdminQueriesRepo, ConditionOutcomeCount, JudgeSampleRow, SessionListRow } from '../../storeInterface';
import type { Sync } from '../sync';

/** Read models for the researcher dashboard: study overview, live monitor, session detail. */



const MONITOR_SELECT = `
  SELECT s.id, s.task_id, s.condition_id, s.step, s.status, s.is_pilot, s.created_at, s.consented_at, s.ended_at, s.submitted_at,
    COALESCE((SELECT MAX(e.server_ts) FROM events e WHERE e.session_id = s.id), s.created_at) AS last_activity_at,
    (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS messages
  FROM sessions s`;

interface RawMonitor {
  id: string;
  task_id: string;
  condition_id: string;
  step: string;
  status: string;
  is_pilot: number;
  created_at: number;
  consented_at: number | null;
  ended_at: number | null;
  submitted_at: number | null;
  last_activity_at: number;
  messages: number;
}
const toMonitor = (r: RawMonitor): SessionListRow => ({
  sessionId: r.id,
  taskId: r.task_id,
  conditionId: r.condition_id,
  step: r.step,
  status: r.status,
  isPilot: r.is_pilot === 1,
  createdAt: r.created_at,
  consentedAt: r.consented_at,
  endedAt: r.ended_at,
  submittedAt: r.submitted_at,
  lastActivityAt: r.last_activity_at,
  messages: r.messages,
});

export class AdminQueriesRepository implements Sync<AdminQueriesRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  private hasTable(name: string): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  }

  /** Session counts by condition, outcome and pilot flag. */
  countsByConditionAndStatus(studyId: string): ConditionOutcomeCount[] {
    const rows = this.db
      .prepare('SELECT condition_id, status, is_pilot, COUNT(*) AS n FROM sessions WHERE study_id = ? GROUP BY condition_id, status, is_pilot ORDER BY condition_id, status')
      .all(studyId) as { condition_id: string; status: string; is_pilot: number; n: number }[];
    return rows.map((r) => ({ conditionId: r.condition_id, status: r.status, isPilot: r.is_pilot === 1, n: r.n }));
  }

  /** Highest event row id: changes whenever anything happens in any session (cheap change detector). */
  lastEventId(): number {
    return (this.db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM events').get() as { id: number }).id;
  }

  /** Active sessions plus those that ended since `endedSince`, newest first (bounded by `limit`). */
  monitorRows(studyId: string, endedSince: number, limit = 500): SessionListRow[] {
    const rows = this.db
      .prepare(`${MONITOR_SELECT} WHERE s.study_id = ? AND (s.status = 'active' OR s.ended_at >= ?) ORDER BY s.created_at DESC LIMIT ?`)
      .all(studyId, endedSince, limit) as RawMonitor[];
    return rows.map(toMonitor);
  }

  /** A page of the study's sessions, newest first. */
  listSessions(studyId: string, limit: number, offset: number): SessionListRow[] {
    const rows = this.db.prepare(`${MONITOR_SELECT} WHERE s.study_id = ? ORDER BY s.created_at DESC, s.id LIMIT ? OFFSET ?`).all(studyId, limit, offset) as RawMonitor[];
    return rows.map(toMonitor);
  }

  judgeSamples(sessionId: string): JudgeSampleRow[] {
    if (!this.hasTable('judgements')) return [];
    const rows = this.db
      .prepare(
        `SELECT artifact_version, rubric_id, COALESCE(reported_model, requested_model) AS model, sample, score, parse_ok, failure_reason
         FROM judgements WHERE session_id = ? ORDER BY artifact_version, rubric_id, sample`,
      )
      .all(sessionId) as { artifact_version: number; rubric_id: string; model: string; sample: number; score: number | null; parse_ok: number; failure_reason: string | null }[];
    return rows.map((r) => ({
      artifactVersion: r.artifact_version,
      rubricId: r.rubric_id,
      model: r.model,
      sample: r.sample,
      score: r.score,
      parseOk: r.parse_ok === 1,
      failureReason: r.failure_reason,
    }));
  }

  /** Judged non-pilot sessions of one task with their token sums (for Pz within task). */
  judgedInTask(studyId: string, taskId: string): { sessionId: string; quality: number; userTokens: number; agentTokens: number }[] {
    if (!this.hasTable('judge_quality')) return [];
    const rows = this.db
      .prepare(
        `SELECT s.id, q.quality,
           (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'user') AS user_tokens,
           (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant') AS agent_tokens
         FROM sessions s JOIN judge_quality q ON q.session_id = s.id
         WHERE s.study_id = ? AND s.task_id = ? AND s.is_pilot = 0 AND q.quality IS NOT NULL ORDER BY s.id`,
      )
      .all(studyId, taskId) as { id: string; quality: number; user_tokens: number; agent_tokens: number }[];
    return rows.map((r) => ({ sessionId: r.id, quality: r.quality, userTokens: r.user_tokens, agentTokens: r.agent_tokens }));
  }

  quality(sessionId: string): number | null {
    if (!this.hasTable('judge_quality')) return null;
    const r = this.db.prepare('SELECT quality FROM judge_quality WHERE session_id = ?').get(sessionId) as { quality: number | null } | undefined;
    return r?.quality ?? null;
  }
}
