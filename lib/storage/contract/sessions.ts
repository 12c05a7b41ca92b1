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

/** The step and status a compare-and-set state change expects the row at (SessionsRepo.changeFrom). */
export type SessionAt = Pick<SessionRow, 'step' | 'status'>;

/** What SessionsRepo.changeFrom did: the change (its events' seqs, the new row), or nothing and the row as it is. */
export type SessionChangeFrom = { changed: true; seqs: number[]; session: SessionRow } | { changed: false; session: SessionRow };

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
   * throws if there is no such session. (PostgreSQL: tandem_change_session_from without a condition, migrations 033
   * and 036, one round trip.)
   */
  change(id: string, events: readonly SessionChangeEvent[], patch: SessionPatch, now: number): Promise<{ seqs: number[]; session: SessionRow }>;
  /**
   * change, made only while the row is still at `from` (its step and status): a compare-and-set, for a state change
   * that needs no transaction of its own. The row is checked and changed in one statement on PostgreSQL (a concurrent
   * change makes it wait and re-check the row it then finds), inside the write lock on SQLite. Answers the row as it
   * is, unchanged, when it is at another step or status, and undefined when there is no such session. (PostgreSQL:
   * tandem_change_session_from, migration 036, one round trip: a consent holds the balance_counts rows it updates
   * for that statement only, not across the server's round trips to COMMIT.)
   */
  changeFrom(id: string, from: SessionAt, events: readonly SessionChangeEvent[], patch: SessionPatch, now: number): Promise<SessionChangeFrom | undefined>;
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
