/**
 * The row shape both engines' sessions-list queries return (same column names on SQLite and PostgreSQL),
 * its mapping to SessionFacts, and the whitelisted ORDER BY expressions (standard SQL on both).
 */
import { SESSION_COST_LAMBDA, type SessionFacts, type SessionListSortKey } from '../contract/sessionList';

// Whitelisted ORDER BY expressions (never built from the request); NULLs last in either direction.
export const SESSION_LIST_SORT_SQL: Record<SessionListSortKey, string> = {
  started: 'f.created_at',
  ended: 'f.ended_at',
  time_on_task: '(f.submitted_at - COALESCE(f.consented_at, f.created_at))',
  messages: 'f.messages',
  cost: `(f.user_tokens + ${SESSION_COST_LAMBDA} * f.agent_tokens)`,
  quality: 'f.quality',
  condition: 'f.condition_id',
  status: 'f.status',
};

export interface RawSessionFacts {
  id: string;
  task_id: string;
  condition_id: string;
  status: string;
  step: string;
  is_pilot: number;
  created_at: number;
  consented_at: number | null;
  submitted_at: number | null;
  ended_at: number | null;
  messages: number;
  user_tokens: number;
  agent_tokens: number;
  quality: number | null;
}

export const toSessionFacts = (r: RawSessionFacts): SessionFacts => ({
  sessionId: r.id,
  taskId: r.task_id,
  conditionId: r.condition_id,
  status: r.status,
  step: r.step,
  isPilot: r.is_pilot === 1,
  createdAt: r.created_at,
  consentedAt: r.consented_at,
  submittedAt: r.submitted_at,
  endedAt: r.ended_at,
  messages: r.messages,
  userTokens: r.user_tokens,
  agentTokens: r.agent_tokens,
  quality: r.quality,
});

