/**
 * The dashboard's read models (AdminQueriesRepo) as both engines' queries (../sql/admin.ts) return them: the row
 * shapes and the mappings. Engine-neutral:
 * is_pilot and parse_ok are INTEGER 0/1 and COUNT(*)/SUM a JS number on both (postgres/connection.ts parses
 * BIGINT and NUMERIC to numbers).
 */
import type { ConditionOutcomeCount, JudgeSampleRow, SessionListRow } from '../contract/store';

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
