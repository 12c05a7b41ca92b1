/**
 * The researcher side: the audit log, login credential and sessions, and the dashboard's read models. Part of
 * the storage contract: lib/storage/contract/store.ts re-exports everything here, and code imports it from
 * there.
 */

export interface AuditEntry {
  id: number;
  at: number;
  actor: string;
  action: string;
  studyId: string | null;
  details: Record<string, unknown>;
}

export interface AuditCounts {
  total: number;
  byAction: Record<string, number>;
  firstAt: number | null;
  lastAt: number | null;
}

export interface AdminCredential {
  passwordHash: string;
  source: 'env' | 'generated';
  createdAt: number;
  updatedAt: number;
}

export interface AdminSessionRow {
  tokenHash: string;
  csrfToken: string;
  actor: string;
  createdAt: number;
  expiresAt: number;
  lastSeenAt: number;
}

export interface ConditionOutcomeCount {
  conditionId: string;
  status: string;
  isPilot: boolean;
  n: number;
}

export interface MonitorRow {
  sessionId: string;
  taskId: string;
  conditionId: string;
  step: string;
  status: string;
  isPilot: boolean;
  createdAt: number;
  consentedAt: number | null;
  endedAt: number | null;
  lastActivityAt: number;
  messages: number;
}

export interface SessionListRow extends MonitorRow {
  submittedAt: number | null;
}

export interface JudgeSampleRow {
  artifactVersion: number;
  rubricId: string;
  model: string;
  sample: number;
  score: number | null;
  parseOk: boolean;
  failureReason: string | null;
}

/** The append-only audit log of researcher actions. */
export interface AuditRepo {
  append(entry: { at: number; actor: string; action: string; studyId: string | null; details?: Record<string, unknown> }): Promise<number>;
  /** Newest first. With a study id: that study's entries plus installation-wide ones (login, …). */
  list(options?: { studyId?: string; limit?: number }): Promise<AuditEntry[]>;
  counts(studyId?: string): Promise<AuditCounts>;
}

/** Researcher password hash and login sessions. */
export interface AdminAuthRepo {
  getCredential(): Promise<AdminCredential | undefined>;
  setCredential(passwordHash: string, source: 'env' | 'generated', now: number): Promise<void>;
  /** Inserts the credential only if none exists; returns whether it was inserted (first start wins, also across nodes). */
  insertCredentialIfAbsent(passwordHash: string, source: 'env' | 'generated', now: number): Promise<boolean>;
  insertSession(s: AdminSessionRow): Promise<void>;
  /** The session for a token hash if it has not expired at `now`. */
  findLiveSession(tokenHash: string, now: number): Promise<AdminSessionRow | undefined>;
  touchSession(tokenHash: string, now: number): Promise<void>;
  deleteSession(tokenHash: string): Promise<void>;
  /** Logs everyone out (after a password change). */
  deleteAllSessions(): Promise<void>;
  deleteExpired(now: number): Promise<number>;
}

/** Read models for the researcher dashboard: study overview, live monitor, session detail. */
export interface AdminQueriesRepo {
  /** Session counts by condition, outcome and pilot flag. */
  countsByConditionAndStatus(studyId: string): Promise<ConditionOutcomeCount[]>;
  /** A number that changes whenever anything happens in any session (cheap change detector). */
  lastEventId(): Promise<number>;
  /** Active sessions plus those that ended since `endedSince`, newest first (bounded by `limit`). */
  monitorRows(studyId: string, endedSince: number, limit?: number): Promise<SessionListRow[]>;
  /** A page of the study's sessions, newest first. */
  listSessions(studyId: string, limit: number, offset: number): Promise<SessionListRow[]>;
  judgeSamples(sessionId: string): Promise<JudgeSampleRow[]>;
  /** Judged non-pilot sessions of one task with their token sums (for Pz within task). */
  judgedInTask(studyId: string, taskId: string): Promise<{ sessionId: string; quality: number; userTokens: number; agentTokens: number }[]>;
  quality(sessionId: string): Promise<number | null>;
}
