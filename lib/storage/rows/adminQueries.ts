/**
 * The dashboard's read models (AdminQueriesRepo) as both engines' queries return them: the monitor/session
 * list SELECT (standard SQL, the same on SQLite and PostgreSQL), its row shape and the mappings. Engine-neutral:
 * is_pilot and parse_ok are INTEGER 0/1 and COUNT(*)/SUM a JS number on both (postgres/connection.ts parses
 * BIGINT and NUMERIC to numbers).
 */
import type { ConditionOutcomeCount, JudgeSampleRow, SessionListRow } from '../contract/store';

/** The monitor and session-list SELECT; each engine appends its WHERE/ORDER BY/LIMIT with its placeholders. */
export const MONITOR_SELECT = `
  SELECT s.id, s.task_id, s.condition_id, s.step, s.status, s.is_pilot, s.created_at, s.consented_at, s.ended_at, s.submitted_at,
    COALESCE((SELECT MAX(e.server_ts) FROM events e WHERE e.session_id = s.id), s.created_at) AS last_activity_at,
    (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS messages
  FROM sessions s`;

export interface MonitorRaw {
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

export const toMonitorRow = (r: MonitorRaw): SessionListRow => ({
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

export interface ConditionOutcomeCountRaw {
  condition_id: string;
  status: string;
  is_pilot: number;
  n: number;
}

export const toConditionOutcomeCount = (r: ConditionOutcomeCountRaw): ConditionOutcomeCount => ({
  conditionId: r.condition_id,
  status: r.status,
  isPilot: r.is_pilot === 1,
  n: r.n,
});

/** The judge samples of a session, by version, rubric and sample (the query is the same on both engines but for its placeholder). */
export const judgeSamplesSql = (sessionIdPlaceholder: string): string =>
  `SELECT artifact_version, rubric_id, COALESCE(reported_model, requested_model) AS model, sample, score, parse_ok, failure_reason
   FROM judgements WHERE session_id = ${sessionIdPlaceholder} ORDER BY artifact_version, rubric_id, sample`;

export interface JudgeSampleRaw {
  artifact_version: number;
  rubric_id: string;
  model: string;
  sample: number;
  score: number | null;
  parse_ok: number;
  failure_reason: string | null;
}

export const toJudgeSample = (r: JudgeSampleRaw): JudgeSampleRow => ({
  artifactVersion: r.artifact_version,
  rubricId: r.rubric_id,
  model: r.model,
  sample: r.sample,
  score: r.score,
  parseOk: r.parse_ok === 1,
  failureReason: r.failure_reason,
});

/**
 * Judged non-pilot sessions of one task with their token sums (for Pz within task); the placeholders of the
 * study id and the task id are the engine's.
 */
export const judgedInTaskSql = (studyIdPlaceholder: string, taskIdPlaceholder: string): string =>
  `SELECT s.id, q.quality,
     (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'user') AS user_tokens,
     (SELECT COALESCE(SUM(m.tokens), 0) FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant') AS agent_tokens
   FROM sessions s JOIN judge_quality q ON q.session_id = s.id
   WHERE s.study_id = ${studyIdPlaceholder} AND s.task_id = ${taskIdPlaceholder} AND s.is_pilot = 0 AND q.quality IS NOT NULL ORDER BY s.id`;

export interface JudgedInTaskRaw {
  id: string;
  quality: number;
  user_tokens: number;
  agent_tokens: number;
}

export interface JudgedInTask {
  sessionId: string;
  quality: number;
  userTokens: number;
  agentTokens: number;
}

export const toJudgedInTask = (r: JudgedInTaskRaw): JudgedInTask => ({ sessionId: r.id, quality: r.quality, userTokens: r.user_tokens, agentTokens: r.agent_tokens });
