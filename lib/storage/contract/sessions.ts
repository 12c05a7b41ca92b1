/**
 * Sessions: one row per participant visit, and its integrity telemetry. Part of the storage contract:
 * lib/storage/contract/store.ts re-exports everything here, and code imports it from there.
 */
import type { SessionStatus, Step } from '../../../common/session';
import type { TelemetrySummary } from '../../../common/telemetrySummary';

export interface SessionRow {
  id: string;
  studyId: string;
  taskId: string;
  conditionId: string;
  step: Step;
  status: SessionStatus;
  isPilot: boolean;
  consentVersion: string | null;
  createdAt: number;
  consentedAt: number | null;
  submittedAt: number | null;
  endedAt: number | null;
  updatedAt: number;
}

export type SessionPatch = Partial<Pick<SessionRow, 'step' | 'status' | 'consentVersion' | 'consentedAt' | 'submittedAt' | 'endedAt'>>;

/** One trajectory event of a state change (SessionsRepo.change); its server time is the change's `now`. */
export interface SessionChangeEvent {
  type: string;
  payload: unknown;
  clientTs: number | null;
}

export interface SessionsRepo {
  insert(s: Pick<SessionRow, 'id' | 'studyId' | 'taskId' | 'conditionId' | 'isPilot' | 'createdAt'>): Promise<SessionRow>;
  get(id: string): Promise<SessionRow | undefined>;
  /** Flags a session as played by the simulator (migration 030; set at join, in pilot studies only). */
  markSimulated(id: string): Promise<void>;
  /**
   * Like get, and inside a transaction also locks the session row until commit, so two state changes of one
   * session (two nodes, two sockets) run one after the other and the second sees the first's result
   * (PostgreSQL: SELECT … FOR UPDATE; SQLite: the transaction already holds the database's write lock).
   */
  getForUpdate(id: string): Promise<SessionRow | undefined>;
  listByStudy(studyId: string): Promise<SessionRow[]>;
  update(id: string, patch: SessionPatch, now: number): Promise<SessionRow>;
  /**
   * A state change in one store call: appends `events` in order (as events.append would, seqs consecutive, their
   * payload bytes counted for storageBytes) and applies `patch` as update does (updated_at = now), the row
   * updated once. Call inside the transaction that locked the session. Returns the events' seqs and the new row;
   * throws if there is no such session. (PostgreSQL: tandem_change_session, migration 033, one round trip.)
   */
  change(id: string, events: readonly SessionChangeEvent[], patch: SessionPatch, now: number): Promise<{ seqs: number[]; session: SessionRow }>;
  /**
   * Number of non-pilot sessions per condition (conditions with none are absent). With
   * `unconsentedSince`, a session that has not consented counts only if it was created at or after that
   * time (services/assignment.ts: an unconsented visit holds a balanced slot for a few minutes only); that count reads
   * the consented ones from balance_counts (migration 035) and only the recent unconsented visits, not the study's sessions.
   */
  countByCondition(studyId: string, unconsentedSince?: number): Promise<Map<string, number>>;
  /** Number of non-pilot sessions per task (tasks with none are absent); `unconsentedSince` as above. */
  countByTask(studyId: string, unconsentedSince?: number): Promise<Map<string, number>>;
  /** Number of the study's sessions still in progress (status active), pilot ones included. */
  countActive(studyId: string): Promise<number>;
  /** Active sessions whose deadline may have passed (consented before `consentedBefore`). */
  listActiveConsentedBefore(consentedBefore: number): Promise<SessionRow[]>;
  /** Number of sessions (of one study, or all). */
  count(studyId?: string): Promise<number>;
  /**
   * UTF-8 bytes the session holds in the store: its event payloads and message texts (a counter kept by
   * events.append and the message inserts) plus its current artifact draft. The per-session storage budget.
   */
  storageBytes(id: string): Promise<number>;
}

/** A session's accumulated integrity telemetry (common/telemetrySummary.ts): one row, rewritten per batch. */
export interface SessionTelemetryRow {
  sessionId: string;
  summary: TelemetrySummary;
  /** Batches accepted so far and their payload bytes (JSON), for the per-session bound. */
  batches: number;
  bytes: number;
  updatedAt: number;
}

export interface SessionTelemetryRepo {
  get(sessionId: string): Promise<SessionTelemetryRow | undefined>;
  /** Inserts or replaces the session's row. Call inside the transaction that appended the batch's event. */
  put(row: SessionTelemetryRow): Promise<void>;
}
