import type { AdminQueriesRepo, ConditionOutcomeCount, JudgeSampleRow, SessionListRow } from '../../storeInterface';
import type { Runner } from '../connection';

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

export class PgAdminQueries implements AdminQueriesRepo {
  constructor(private readonly db: Runner) {}

  async countsByConditionAndStatus(studyId: string): Promise<ConditionOutcomeCount[]> {
    const rows = await this.db.rows<{ condition_id: string; status: string; is_pilot: number; n: number }>(
      'SELECT condition_id, status, is_pilot, COUNT(*) AS n FROM sessions WHERE study_id = $1 GROUP BY condition_id, status, is_pilot ORDER BY condition_id, status, is_pilot',
      [studyId],
    );
    return rows.map((r) => ({ conditionId: r.condition_id, status: r.status, isPilot: r.is_pilot === 1, n: r.n }));
  }

  /** The highest event id (an identity: grows with every append on any node). */
  async lastEventId(): Promise<number> {
    return (await this.db.one<{ id: number }>('SELECT COALESCE(MAX(id), 0) AS id FROM events'))!.id;
  }

  async monitorRows(studyId: string, endedSince: number, limit = 500): Promise<SessionListRow[]> {
    const rows = await this.db.rows<RawMonitor>(
      `${MONITOR_SELECT} WHERE s.study_id = $1 AND (s.status = 'active' OR s.ended_at >= $2) ORDER BY s.created_at DESC LIMIT $3`,
      [studyId, endedSince, limit],
    );
    return rows.map(toMonitor);
  }

  async listSessions(studyId: string, limit: number, offset: number): Promise<SessionListRow[]> {
    const rows = await this.db.rows<RawMonitor>(`${MONITOR_SELECT} WHERE s.study_id = $1 ORDER BY s.created_at DESC, s.id LIMIT $2 OFFSET $3`, [
      studyId,
      limit,
      offset,
    ]);
    return rows.map(toMonitor);
  }

  async judgeSamples(sessionId: string): Promise<JudgeSampleRow[]> {
    const rows = await this.db.rows<{
      artifact_version: number;
      rubric_id: string;
      model: string;
      sample: number;
      score: number | null;
      parse_ok: number;
      failure_reason: string | null;
    }>(
      `SELECT artifact_version, rubric_id, COALESCE(reported_model, requested_model) AS model, sample, score, parse_ok, failure_reason
       FROM judgements WHERE session_id = $1 ORDER BY artifact_version, rubric_id, sample`,
      [sessionId],
    );
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

  async judgedInTask(studyId: string, taskId: string): Promise<{ sessionId: string; quality: number; userTokens: number; agentTokens: number }[]> {
    const rows = await this.db.rows<{ id: string; quality: number; user_tokens: number; agent_tokens: number }>(
      `SELECT s.id, q.quality,
         (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'user') AS user_tokens,
         (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant') AS agent_tokens
       FROM sessions s JOIN judge_quality q ON q.session_id = s.id
       WHERE s.study_id = $1 AND s.task_id = $2 AND s.is_pilot = 0 AND q.quality IS NOT NULL ORDER BY s.id`,
      [studyId, taskId],
    );
    return rows.map((r) => ({ sessionId: r.id, quality: r.quality, userTokens: r.user_tokens, agentTokens: r.agent_tokens }));
  }

  async quality(sessionId: string): Promise<number | null> {
    return (await this.db.one<{ quality: number | null }>('SELECT quality FROM judge_quality WHERE session_id = $1', [sessionId]))?.quality ?? null;
  }
}
