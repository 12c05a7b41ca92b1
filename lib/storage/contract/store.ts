/**
 * THE STORAGE CONTRACT. Both engines implement exactly this interface: the embedded SQLite store
 * (lib/storage/sqlite/, better-sqlite3, the default) and the PostgreSQL store (lib/storage/postgres/, `pg`).
 * Every service, socket/HTTP handler, CLI, exporter, bench and test talks to storage only through it:
 * nothing outside lib/storage/ sees SQL, a driver or a connection.
 *
 * Rules every implementation keeps (docs/storage.md explains how each engine does it):
 * - Every method returns a promise; a method on a `StoreTx` runs inside that transaction.
 * - `transaction(fn)` is atomic and isolated: derived rows are written in the same transaction as their
 *   event; when fn's promise rejects nothing of it is stored. Operations on the Store outside the
 *   transaction never see or join its uncommitted work.
 * - Events are append-only (there is no update or delete of an event; withdrawal deletes whole sessions).
 * - `messages.insertIfNewClientId` is decided by the (session_id, client_id) unique constraint, so two
 *   resends racing on two connections store the message once.
 * - `events.append` gives a session's events seq 1, 2, … without gaps or duplicates, also under
 *   concurrent appends to the same session from two connections.
 * - Row types are engine-neutral camelCase objects; JSON columns arrive parsed; booleans are booleans;
 *   times are ms since the epoch as numbers.
 */
import type { Logger } from 'pino';
import type { AdminSessionListRepo } from './sessionList';
import type { UserMessageAck, UserMessageAckResult } from './userMessageAck';
import type { DraftSave, DraftSaveResult } from './draftSave';
import type { ArtifactSubmission, ArtifactSubmitResult } from './artifactSubmit';
import type { SurveySubmission, SurveySubmitResult } from './surveySubmit';
import type { AssistantReplyWrite, AssistantReplyWriteResult } from './assistantReplyWrite';
import type { SessionStateRows } from './sessionState';
import type { AdminAuthRepo, AdminQueriesRepo, AuditRepo } from './admin';
import type { ExportSnapshot } from './exportSnapshot';
import type { AnnotationsRepo, GroupJudgementsRepo, JudgementsRepo, ModelReplyCache } from './judging';
import type { IdentitiesRepo, ParticipantTokensRepo, WithdrawalsRepo } from './participants';
import type { SessionsRepo, SessionTelemetryRepo } from './sessions';
import type { StudiesRepo } from './studies';
import type { ArtifactsRepo, SurveyAnswersRepo, UploadsRepo } from './submissions';
import type { StoreTable } from './tables';
import type { EventsRepo, MessagesRepo, ReplyProgressRepo } from './trajectory';
import type { ReviewsRepo } from './reviews';
import type { ReplyLeasesRepo } from './leases';
import type { PreregistrationsRepo } from './preregistrations';
import type { AdminJobsRepo } from './jobs';
import type { NamedLocks } from './locks';
import type { PseudonymKeyRepo } from './pseudonymKey';
import type { GroupsRepo } from './groups';
import type { TelemetrySummary } from '../../../common/telemetrySummary';

// The row types and repository interfaces live in contract/, grouped by what they own; code outside
// lib/storage/contract/ imports them from this file.
export * from './sessionList';
export * from './admin';
export * from './exportSnapshot';
export * from './judging';
export * from './participants';
export * from './sessions';
export * from './studies';
export * from './submissions';
export * from './tables';
export * from './trajectory';
export * from './leases';
export * from './jobs';
export * from './locks';
export * from './preregistrations';
export * from './pseudonymKey';
export * from './groups';

// ---------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------

/**
 * The store could not be reached or its connection broke mid-call (PostgreSQL restarting, a failover, a
 * network cut). Retryable: the store reconnects by itself. A transaction cut before COMMIT stored nothing.
 */
export class StoreUnavailableError extends Error {
  readonly retryable = true;
  readonly code = 'store_unavailable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** Whether err is a StoreUnavailableError (also one of an engine that defines its own class with that code). */
export function isStoreUnavailable(err: unknown): boolean {
  return err instanceof StoreUnavailableError || (typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'store_unavailable');
}

// ---------------------------------------------------------------------------------------------------
// The repositories together
// ---------------------------------------------------------------------------------------------------

/** The repositories, on the store (each call its own implicit transaction) or on a transaction. */
export interface StoreRepositories {
  readonly studies: StudiesRepo;
  readonly sessions: SessionsRepo;
  readonly identities: IdentitiesRepo;
  readonly tokens: ParticipantTokensRepo;
  readonly events: EventsRepo;
  readonly messages: MessagesRepo;
  readonly artifacts: ArtifactsRepo;
  readonly uploads: UploadsRepo;
  readonly surveyAnswers: SurveyAnswersRepo;
  /** Crash checkpoints of replies while they stream (see services/replyCheckpoint.ts). */
  readonly replyProgress: ReplyProgressRepo;
  readonly judgements: JudgementsRepo;
  /** A group's shared document judged once as the group's artifact. */
  readonly groupJudgements: GroupJudgementsRepo;
  readonly annotations: AnnotationsRepo;
  readonly audit: AuditRepo;
  readonly adminAuth: AdminAuthRepo;
  readonly adminQueries: AdminQueriesRepo;
  /** The researcher's sessions page and dashboard (sessionListTypes.ts). */
  readonly sessionList: AdminSessionListRepo;
  readonly withdrawals: WithdrawalsRepo;
  /** Integrity telemetry per session (server/services/telemetry.ts). */
  readonly telemetry: SessionTelemetryRepo;
  /** Researcher-in-the-loop replies (reviewTypes.ts; server/wizard/). */
  readonly reviews: ReviewsRepo;
  /** Which node streams each session's active reply (leaseTypes.ts, server/cluster/leases.ts). */
  readonly replyLeases: ReplyLeasesRepo;
  /** Dashboard jobs claimed by one node, visible to all (jobTypes.ts). */
  readonly adminJobs: AdminJobsRepo;
  /** Locked analysis plans and the deviations found after them (lib/preregistration/). */
  readonly preregistrations: PreregistrationsRepo;
  /** Group sessions: lobby, groups, members, the room's messages and the shared document (contract/groups.ts). */
  readonly groups: GroupsRepo;
}

/** The repositories bound to one open transaction. */
export interface StoreTx extends StoreRepositories {
  /** Runs fn inside this transaction (a savepoint: fn's failure undoes only fn's writes). Do not run two at once. */
  transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T>;
}

// ---------------------------------------------------------------------------------------------------
// The store
// ---------------------------------------------------------------------------------------------------

export type StoreEngine = 'sqlite' | 'postgres';

export interface StoreMaintenance {
  stop(): Promise<void>;
}

export interface Store extends StoreRepositories {
  readonly engine: StoreEngine;
  /** For logs: the SQLite file path, or the PostgreSQL URL without its password. */
  readonly description: string;
  /**
   * Runs fn in one transaction and resolves with its result after COMMIT; when fn rejects, rolls back and
   * rejects with fn's error. Use only `tx` inside fn (calls on the Store itself wait for the transaction
   * on SQLite and run on another connection on PostgreSQL).
   */
  transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T>;
  /**
   * The same store (same data, same guarantees) for work a participant is waiting on: a chat message's
   * acknowledgement, a Stop and the session's steps (its state, consent, the end of the instructions, drafts, the
   * submission, the survey, connection marks; server/services/participants.ts). Its calls and transactions must
   * not queue behind background writes (checkpoints, telemetry, replies being stored). SQLite: the store itself
   * (one connection, statements run at once). PostgreSQL: a pool of its own (`PGPOOL_INTERACTIVE_MAX`, default
   * 20), so under load a participant's request waits for other participants' requests only, not behind hundreds
   * of queued background statements. Closed with the store.
   */
  readonly interactive: Store;
  /** A participant's chat message: checks, stores and answers in one call (contract in ./userMessageAck.ts). */
  acknowledgeUserMessage(ack: UserMessageAck): Promise<UserMessageAckResult>;
  /** An autosave: checks, stores and answers in one call (contract in ./draftSave.ts). */
  saveDraft(save: DraftSave): Promise<DraftSaveResult>;
  /** A submission: checks, the pending draft's event, the state change and the version in one call (contract in ./artifactSubmit.ts). */
  submitArtifact(submission: ArtifactSubmission): Promise<ArtifactSubmitResult>;
  /** A survey's submission: the ending as a compare-and-set and the answers in one call (contract in ./surveySubmit.ts). */
  submitSurvey(submission: SurveySubmission): Promise<SurveySubmitResult>;
  /** A finished reply's outcome: lease, event, message and checkpoint in one call (contract in ./assistantReplyWrite.ts). */
  storeAssistantReply(write: AssistantReplyWrite): Promise<AssistantReplyWriteResult>;
  /** Every row of a participant's session:state in one read (./sessionStateRows.ts); undefined when there is no such session. */
  readSessionState(sessionId: string): Promise<SessionStateRows | undefined>;
  /** Cluster-wide named locks for periodic jobs (lockTypes.ts). */
  readonly locks: NamedLocks;
  /** The pseudonym key's fingerprint (./pseudonymKey.ts; checked by lib/pseudonym.ts openPseudonymKey). */
  readonly pseudonymKey: PseudonymKeyRepo;
  /** A consistent read-only snapshot for the dataset export (see ExportSnapshot). */
  openExportSnapshot(): Promise<ExportSnapshot>;
  /**
   * The reply cache of study-mode judge/annotate runs for this store (SQLite: <dataDir>/.judge-cache.sqlite
   * beside the database file; PostgreSQL: a table of the database). The caller closes it.
   */
  openReplyCache(): Promise<ModelReplyCache>;
  /** Row counts of every table (tests, db:copy verification). */
  countRows(): Promise<Record<StoreTable, number>>;
  /** The highest migration version applied. */
  schemaVersion(): Promise<number>;
  /**
   * Starts the engine's background upkeep for a long-running server (SQLite: WAL checkpoints on a worker
   * thread, so a participant's commit never pays for the fsync; PostgreSQL: nothing, the server does it).
   */
  startMaintenance(log: Logger): StoreMaintenance;
  /** Closes the store (waits for an open transaction on SQLite); later calls reject. */
  close(): Promise<void>;
}
