/**
 * Read models of the researcher's sessions page and dashboard (part of the store contract,
 * contract/store.ts): every session of a study filtered, sorted and paged by the engine, and the
 * per-session facts the dashboard plots are built from.
 */

export interface SessionListFilter {
  status?: string;
  conditionId?: string;
  pilot: 'include' | 'exclude' | 'only';
  judged: 'any' | 'judged' | 'unjudged';
  qualityMin?: number;
  qualityMax?: number;
  /** created_at bounds, ms: from inclusive, to exclusive. */
  createdFrom?: number;
  createdTo?: number;
  /** Only these session ids (e.g. the pseudonym search's matches). */
  sessionIds?: string[];
}

export type SessionListSortKey = 'started' | 'ended' | 'time_on_task' | 'messages' | 'cost' | 'quality' | 'condition' | 'status';

/** One session with its counts: what a list row and a dashboard point are made of. */
export interface SessionFacts {
  sessionId: string;
  taskId: string;
  conditionId: string;
  status: string;
  step: string;
  isPilot: boolean;
  createdAt: number;
  consentedAt: number | null;
  submittedAt: number | null;
  endedAt: number | null;
  messages: number;
  userTokens: number;
  agentTokens: number;
  quality: number | null;
}

/** λ of the cost C = user_tokens + λ·agent_tokens used for sorting by cost (design.md default; as the session view). */
export const SESSION_COST_LAMBDA = 0.5;

export interface AdminSessionListRepo {
  /** A page of the study's sessions matching `filter`, and how many match in all. */
  listPage(
    studyId: string,
    filter: SessionListFilter,
    sort: SessionListSortKey,
    order: 'asc' | 'desc',
    limit: number,
    offset: number,
  ): Promise<{ total: number; rows: SessionFacts[] }>;
  /** Every session id of the study (for the pseudonym search, which is keyed HMAC and so cannot run in the database). */
  sessionIds(studyId: string): Promise<string[]>;
  /** The steps each session of the study moved to (its step.changed events), for the completion funnel. */
  stepsReached(studyId: string): Promise<{ sessionId: string; step: string }[]>;
  /** Every session of the study with its counts, oldest first (the dashboard's input). */
  allFacts(studyId: string, pilot: 'include' | 'exclude' | 'only'): Promise<SessionFacts[]>;
}
