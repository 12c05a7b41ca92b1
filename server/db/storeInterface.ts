/**
 * THE STORAGE CONTRACT. Both engines implement exactly this interface: the embedded SQLite store
 * (server/db/sqlite/, better-sqlite3, the default) and the PostgreSQL store (server/db/postgres/, `pg`).
 * Every service, socket/HTTP handler, CLI, exporter, bench and test talks to storage only through it:
 * nothing outside server/db/ sees SQL, a driver or a connection.
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
import type { StudyStatus } from '../../common/http';
import type { MessageStatus, SessionStatus, Step } from '../../common/session';
import type { AttachedImage } from '../judge/judgeImages';
import type { JudgeSample } from '../judge/runJudge';
import type { AdminSessionListRepo } from './sessionListTypes';
import type { ReplyLeasesRepo } from './leaseTypes';
import type { AdminJobsRepo } from './jobTypes';
import type { NamedLocks } from './lockTypes';
import type { TelemetrySummary } from '../../common/telemetrySummary';

export * from './sessionListTypes';
export * from './leaseTypes';
export * from './jobTypes';
export * from './lockTypes';

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
// Rows
// ---------------------------------------------------------------------------------------------------

export interface StudyRow {
  id: string;
  title: string;
  status: StudyStatus;
  definitionHash: string;
  createdAt: number;
  updatedAt: number;
}

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

/** Platform identity of a session: the only place platform ids and raw URL parameters are stored. */
export interface IdentityRow {
  sessionId: string;
  studyId: string;
  platform: string;
  platformUserId: string | null;
  platformStudyId: string | null;
  platformSessionId: string | null;
  urlParams: Record<string, string>;
  createdAt: number;
}

/** One trajectory event. `payload` is parsed JSON. */
export interface EventRow {
  sessionId: string;
  seq: number;
  type: string;
  payload: unknown;
  serverTs: number;
  clientTs: number | null;
}

/** A `reply.started` event whose reply was never stored (the process died mid-reply). */
export interface UnfinishedReply {
  sessionId: string;
  replyId: string;
  replyTo: string;
  startedAt: number;
}

export interface MessageRow {
  id: string;
  sessionId: string;
  eventSeq: number;
  role: 'user' | 'assistant';
  text: string;
  clientId: string | null;
  replyTo: string | null;
  status: MessageStatus;
  /** o200k_base token count of `text`. */
  tokens: number;
  provider: string | null;
  providerUrl: string | null;
  /** Exact model the provider reported. */
  model: string | null;
  requestedModel: string | null;
  params: Record<string, unknown> | null;
  usage: { promptTokens: number; completionTokens: number; totalTokens: number } | null;
  ttftMs: number | null;
  durationMs: number | null;
  finishReason: string | null;
  interrupted: boolean;
  attempts: number | null;
  error: { kind: string; message: string; status?: number; retryable: boolean } | null;
  createdAt: number;
}

export type FieldValues = Record<string, string>;

export interface ArtifactDraftRow {
  sessionId: string;
  fields: FieldValues;
  /** The last artifact.draft_saved event of the session (it recorded version `recordedVersion`). */
  eventSeq: number;
  savedAt: number;
  /** Saves of this draft so far (1, 2, …): a save based on an older version is stale (another tab). */
  version: number;
  /** The version the trajectory last recorded (an artifact.draft_saved event), and when (server ms). */
  recordedVersion: number;
  recordedAt: number;
}

export interface ArtifactVersionRow {
  sessionId: string;
  version: number;
  fields: FieldValues;
  eventSeq: number;
  submittedAt: number;
}

export interface UploadRow {
  id: string;
  sessionId: string;
  fieldId: string;
  fileName: string;
  contentType: string;
  bytes: number;
  sha256: string;
  /** Relative to the data directory. */
  storagePath: string;
  eventSeq: number;
  createdAt: number;
}

export interface SurveyAnswerRow {
  sessionId: string;
  surveyId: string;
  itemId: string;
  itemKind: string;
  valueNum: number | null;
  valueText: string | null;
  eventSeq: number;
  createdAt: number;
}

/** The latest crash checkpoint of a reply that is (or was, when the process died) streaming. */
export interface ReplyProgressRow {
  replyId: string;
  sessionId: string;
  /** Everything streamed up to the checkpoint. */
  text: string;
  provider: string | null;
  /** Server ms UTC of the first streamed text. */
  firstDeltaAt: number;
  /** Server ms UTC of the checkpoint. */
  updatedAt: number;
}

/**
 * A judge sample as stored: server/judge/runJudge.ts JudgeSample plus the artifact version it scored,
 * with createdAt as ms since the epoch. `images` is present exactly when the sample was judged with
 * `--images attach`.
 */
export interface JudgementRecord extends Omit<JudgeSample, 'createdAt'> {
  artifactVersion: number;
  createdAt: number;
}

export interface SessionQualityRecord {
  sessionId: string;
  artifactVersion: number;
  rubricId: string;
  rubricHash: string;
  requestedModel: string;
  quality: number | null;
  samples: number;
  parsed: number;
  updatedAt: number;
}

/** One annotated utterance of a session. */
export interface AnnotationRecord {
  sessionId: string;
  turn: number;
  messageId: string | null;
  speaker: 'user' | 'agent';
  /** null when the utterance could not be labelled (method 'failed'). */
  friction: string | null;
  grounding: string[];
  guideHash: string;
  requestedModel: string;
  reportedModel: string | null;
  provider: string;
  providerUrl: string | null;
  method: 'batch' | 'batch_retry' | 'single' | 'failed';
  failureReason: string | null;
  createdAt: number;
}

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

export interface WithdrawalRow {
  studyId: string;
  tombstone: string;
  withdrawnAt: number;
  deletedSessions: number;
  actor: string;
}

/** Every table of the schema (both engines have the same tables and columns). */
export const STORE_TABLES = [
  'studies',
  'sessions',
  'identities',
  'participant_tokens',
  'events',
  'messages',
  'artifact_drafts',
  'artifacts',
  'uploads',
  'survey_answers',
  'reply_progress',
  'judgements',
  'judge_quality',
  'annotations',
  'admin_credentials',
  'admin_sessions',
  'audit_log',
  'withdrawals',
  'session_telemetry',
] as const;
export type StoreTable = (typeof STORE_TABLES)[number];

// ---------------------------------------------------------------------------------------------------
// Repositories
// ---------------------------------------------------------------------------------------------------

export interface StudiesRepo {
  /** Records a loaded study file. New studies start with `initialStatus`; an existing row keeps its status. */
  upsertLoaded(id: string, title: string, definitionHash: string, initialStatus: StudyStatus, now: number): Promise<StudyRow>;
  get(id: string): Promise<StudyRow | undefined>;
  list(): Promise<StudyRow[]>;
  setStatus(id: string, status: StudyStatus, now: number): Promise<void>;
}

export interface SessionsRepo {
  insert(s: Pick<SessionRow, 'id' | 'studyId' | 'taskId' | 'conditionId' | 'isPilot' | 'createdAt'>): Promise<SessionRow>;
  get(id: string): Promise<SessionRow | undefined>;
  /**
   * Like get, and inside a transaction also locks the session row until commit, so two state changes of one
   * session (two nodes, two sockets) run one after the other and the second sees the first's result
   * (PostgreSQL: SELECT … FOR UPDATE; SQLite: the transaction already holds the database's write lock).
   */
  getForUpdate(id: string): Promise<SessionRow | undefined>;
  listByStudy(studyId: string): Promise<SessionRow[]>;
  update(id: string, patch: SessionPatch, now: number): Promise<SessionRow>;
  /**
   * Number of non-pilot sessions per condition (conditions with none are absent). With
   * `unconsentedSince`, a session that has not consented counts only if it was created at or after that
   * time (services/assignment.ts: an unconsented visit holds a balanced slot for a few minutes only).
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

export interface IdentitiesRepo {
  insert(row: IdentityRow): Promise<void>;
  /** The session a platform user already has in this study, if any. */
  findSessionId(studyId: string, platform: string, platformUserId: string): Promise<string | undefined>;
  get(sessionId: string): Promise<IdentityRow | undefined>;
  /** Number of identity rows with this platform user id (any study). */
  countByPlatformUserId(platformUserId: string): Promise<number>;
  /** Every session of a platform user in the study, oldest first (one per per-visit id). */
  listForPlatformUser(studyId: string, platform: string, platformUserId: string): Promise<IdentityRow[]>;
  /**
   * Number of the study's sessions opened with a platform user id but no per-visit id (a link without
   * Prolific SESSION_ID / MTurk assignmentId, or a participant_label link): the dashboard's warning.
   */
  countWithoutVisitId(studyId: string): Promise<number>;
  /** Stores the keyed hash of the session's resume code (services/resumeCode.ts), replacing an earlier one. */
  setResumeCodeHash(sessionId: string, hash: string): Promise<void>;
  /** The stored resume code hash of the session (null when none was issued, undefined for no identity row). */
  resumeCodeHash(sessionId: string): Promise<string | null | undefined>;
}

/** Participant tokens, by SHA-256 hash (the token itself is never stored). */
export interface ParticipantTokensRepo {
  insert(tokenHash: string, sessionId: string, now: number): Promise<void>;
  findSessionId(tokenHash: string): Promise<string | undefined>;
  /** Revokes every token of the session (a new one is about to be issued, or the session is withdrawn). Returns how many. */
  deleteForSession(sessionId: string): Promise<number>;
  /** Every stored row as {tokenHash, sessionId, createdAt} (security tests check no raw token is stored). */
  listAll(): Promise<Array<{ tokenHash: string; sessionId: string; createdAt: number }>>;
  count(): Promise<number>;
}

/** The append-only trajectory. There is no update or delete here on purpose. */
export interface EventsRepo {
  /** Appends an event with the session's next seq (1, 2, …) and returns that seq. */
  append(sessionId: string, type: string, payload: unknown, serverTs: number, clientTs: number | null): Promise<number>;
  listForSession(sessionId: string): Promise<EventRow[]>;
  count(sessionId?: string): Promise<number>;
  /** `reply.started` events whose reply was never stored, oldest first (start-up crash recovery). */
  listUnfinishedReplies(): Promise<UnfinishedReply[]>;
}

export interface MessagesRepo {
  insert(m: MessageRow): Promise<void>;
  /**
   * Inserts a participant message unless the session already has one with this clientId; returns whether
   * it was inserted. Decided by the (session_id, client_id) unique constraint (ON CONFLICT DO NOTHING), so
   * it is exactly-once even when two resends race on two connections. Call inside a transaction that
   * rolls back (throws) when it returns false, so the event appended with it is not stored either.
   */
  insertIfNewClientId(m: MessageRow & { clientId: string }): Promise<boolean>;
  get(id: string): Promise<MessageRow | undefined>;
  findByClientId(sessionId: string, clientId: string): Promise<MessageRow | undefined>;
  /** All messages of a session in trajectory order. */
  listForSession(sessionId: string): Promise<MessageRow[]>;
  count(sessionId?: string): Promise<number>;
}

/** Artifact drafts (one per session, overwritten on autosave) and submitted versions (1, 2, …). */
export interface ArtifactsRepo {
  /** Writes (or overwrites) the session's draft row as given (the service decides version and recording). */
  saveDraft(d: ArtifactDraftRow): Promise<void>;
  getDraft(sessionId: string): Promise<ArtifactDraftRow | undefined>;
  /** Stores the next version number for the session and returns it. */
  insertVersion(sessionId: string, fields: FieldValues, eventSeq: number, submittedAt: number): Promise<number>;
  listVersions(sessionId: string): Promise<ArtifactVersionRow[]>;
}

export interface UploadsRepo {
  insert(u: UploadRow): Promise<void>;
  get(id: string): Promise<UploadRow | undefined>;
  listForSession(sessionId: string): Promise<UploadRow[]>;
  count(): Promise<number>;
}

export interface SurveyAnswersRepo {
  insert(a: SurveyAnswerRow): Promise<void>;
  listForSession(sessionId: string): Promise<SurveyAnswerRow[]>;
  hasAnswers(sessionId: string): Promise<boolean>;
}

/**
 * Crash checkpoints of streaming replies: one row per reply in flight, overwritten by each checkpoint
 * (a single-row upsert) and removed in the transaction that stores the finished reply.
 */
export interface ReplyProgressRepo {
  /** Writes (or overwrites) the checkpoint of a reply. `firstDeltaAt` is kept from the first write. */
  save(p: ReplyProgressRow): Promise<void>;
  get(replyId: string): Promise<ReplyProgressRow | undefined>;
  delete(replyId: string): Promise<void>;
  /** Removes checkpoints whose reply is already stored (left behind by a crash between the two writes). Returns how many. */
  deleteStored(): Promise<number>;
  count(): Promise<number>;
}

/** Judge samples and per-session quality. */
export interface JudgementsRepo {
  /** Inserts a sample, replacing an earlier one for the same session/version/rubric/model/sample. */
  upsert(j: JudgementRecord): Promise<void>;
  listForSession(sessionId: string): Promise<JudgementRecord[]>;
  /** Every sample of a study's sessions, ordered by session then sample. */
  listForStudy(studyId: string): Promise<JudgementRecord[]>;
  setQuality(q: SessionQualityRecord): Promise<void>;
  getQuality(sessionId: string): Promise<SessionQualityRecord | undefined>;
}

export interface AnnotationsRepo {
  /** Inserts or replaces the annotation of (session, turn). */
  upsert(a: AnnotationRecord): Promise<void>;
  /** Upserts all records atomically. */
  upsertMany(records: readonly AnnotationRecord[]): Promise<void>;
  listForSession(sessionId: string): Promise<AnnotationRecord[]>;
  /** Every annotation of a study's sessions, by session then turn. */
  listForStudy(studyId: string): Promise<AnnotationRecord[]>;
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

/** Withdrawal of a participant: their sessions (every science table cascades from sessions) and a tombstone. */
export interface WithdrawalsRepo {
  /** Session ids of the platform user in the study (the identity table is the only place that links them). */
  findSessionIds(studyId: string, platformUserId: string): Promise<string[]>;
  /** Upload storage paths (relative to the data dir) of these sessions, to delete the files after the rows. */
  uploadPaths(sessionIds: readonly string[]): Promise<string[]>;
  /** Deletes the sessions and (by cascade) all their rows in every table. Call inside a transaction. */
  deleteSessions(sessionIds: readonly string[]): Promise<number>;
  /** Records the tombstone; a second withdrawal of the same person adds to the deleted count. */
  recordTombstone(w: WithdrawalRow): Promise<void>;
  tombstones(studyId: string): Promise<Set<string>>;
  isWithdrawn(studyId: string, tombstone: string): Promise<boolean>;
  count(studyId: string): Promise<number>;
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
  readonly annotations: AnnotationsRepo;
  readonly audit: AuditRepo;
  readonly adminAuth: AdminAuthRepo;
  readonly adminQueries: AdminQueriesRepo;
  /** The researcher's sessions page and dashboard (sessionListTypes.ts). */
  readonly sessionList: AdminSessionListRepo;
  readonly withdrawals: WithdrawalsRepo;
  /** Integrity telemetry per session (server/services/telemetry.ts). */
  readonly telemetry: SessionTelemetryRepo;
  /** Which node streams each session's active reply (leaseTypes.ts, server/cluster/leases.ts). */
  readonly replyLeases: ReplyLeasesRepo;
  /** Dashboard jobs claimed by one node, visible to all (jobTypes.ts). */
  readonly adminJobs: AdminJobsRepo;
}

/** The repositories bound to one open transaction. */
export interface StoreTx extends StoreRepositories {
  /** Runs fn inside this transaction (a savepoint: fn's failure undoes only fn's writes). Do not run two at once. */
  transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T>;
}

// ---------------------------------------------------------------------------------------------------
// Export snapshot (bounded-memory streaming)
// ---------------------------------------------------------------------------------------------------

export interface ExportSessionRow {
  id: string;
  taskId: string;
  conditionId: string;
  status: string;
  isPilot: boolean;
  createdAt: number;
  /** When consent was accepted; null for a visit that declined or never answered. */
  consentedAt: number | null;
  submittedAt: number | null;
  userTokens: number;
  agentTokens: number;
  userTurns: number;
  agentTurns: number;
  quality: number | null;
  /** Likert and attention-check answers by item id. */
  numericAnswers: Record<string, number>;
  /** Item kinds by item id (to find the attention check). */
  answerKinds: Record<string, string>;
}

/** A session's identity row as the exporter reads it (identities.csv and the redaction list). */
export type ExportIdentity = Omit<IdentityRow, 'sessionId' | 'studyId'>;

export interface ExportMessage {
  /** 1-based position within the session. */
  seq: number;
  role: 'user' | 'assistant';
  text: string;
  createdAt: number;
  tokens: number;
  model: string | null;
  ttftMs: number | null;
  durationMs: number | null;
  finishReason: string | null;
  interrupted: boolean;
  status: string;
}

export interface ExportEvent {
  seq: number;
  type: string;
  payload: unknown;
  serverTs: number;
  clientTs: number | null;
}

export interface ExportArtifact {
  version: number;
  fields: Record<string, string>;
  submittedAt: number;
}

export interface ExportUpload {
  id: string;
  fieldId: string;
  fileName: string;
  contentType: string;
  storagePath: string;
}

export interface ExportJudgement {
  artifactVersion: number;
  rubricId: string;
  rubricHash: string;
  model: string;
  sample: number;
  score: number | null;
  parseOk: boolean;
  cached: boolean;
  /** Images shown to the judge (`--images attach`); null for text-only samples. */
  images: AttachedImage[] | null;
}

export interface ExportAnnotation {
  turn: number;
  speaker: string;
  friction: string | null;
  grounding: string[];
}

/**
 * One consistent read-only snapshot of the whole database for the dataset export (SQLite: a read
 * transaction on a connection of its own; PostgreSQL: a REPEATABLE READ READ ONLY transaction on one
 * pooled client). The AsyncIterables stream rows in bounded batches (PostgreSQL: a cursor), so memory
 * does not grow with the study; the caller may await between rows (streams draining) and may run
 * other snapshot reads while iterating. Writes to the store are never blocked by a snapshot.
 * Always `close()` it (in finally).
 */
export interface ExportSnapshot {
  study(studyId: string): Promise<{ id: string; title: string; status: string } | undefined>;
  countSessions(studyId: string, includePilot: boolean): Promise<number>;
  countPilotSessions(studyId: string): Promise<number>;
  /** Ids of Likert items answered in the study, sorted (used when no survey definition is given). */
  likertItemIds(studyId: string): Promise<string[]>;
  /** Sessions of the study in creation order (then id), with their per-session aggregates. */
  sessions(studyId: string, includePilot: boolean): AsyncIterable<ExportSessionRow>;
  identity(sessionId: string): Promise<ExportIdentity | undefined>;
  /** Every identity of the study (for the redaction matcher). */
  identities(studyId: string): AsyncIterable<ExportIdentity & { sessionId: string }>;
  /** Messages in trajectory order. */
  messages(sessionId: string): AsyncIterable<ExportMessage>;
  events(sessionId: string): AsyncIterable<ExportEvent>;
  artifacts(sessionId: string): Promise<ExportArtifact[]>;
  uploads(sessionId: string): Promise<ExportUpload[]>;
  judgements(sessionId: string): AsyncIterable<ExportJudgement>;
  /** Labelled annotations only (friction not null), by turn. */
  annotations(sessionId: string): AsyncIterable<ExportAnnotation>;
  /** The session's integrity telemetry summary and batch count, if it sent any. */
  telemetry(sessionId: string): Promise<{ summary: TelemetrySummary; batches: number } | undefined>;
  /** Tombstones of withdrawn participants. */
  tombstones(studyId: string): Promise<Set<string>>;
  auditCounts(studyId: string): Promise<AuditCounts>;
  auditList(options: { studyId?: string; limit?: number }): Promise<AuditEntry[]>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------
// Judge / annotator reply cache
// ---------------------------------------------------------------------------------------------------

export interface CachedReply {
  key: string;
  purpose: string;
  /** JSON of the request that produced the reply (messages, model, parameters), for audit. */
  requestJson: string;
  /** JSON of the CompletionResult as the provider returned it. */
  resultJson: string;
  createdAt: number;
}

/**
 * Completed model replies for the judge and the annotator, keyed by a hash of everything that determines
 * the reply plus the sample index (server/judge/cachedModelClient.ts). Only completed replies are stored.
 * Implementations: a standalone SQLite file (server/db/sqlite/replyCache.ts; the default, and always for
 * dataset-mode runs) and a PostgreSQL table (study mode on a PostgreSQL store).
 */
export interface ModelReplyCache {
  get(key: string): Promise<CachedReply | undefined>;
  /** Inserts or replaces the entry. */
  put(entry: CachedReply): Promise<void>;
  /** Records that `sessionId`'s data went into the cached reply `key`. */
  linkSession(key: string, sessionId: string): Promise<void>;
  /** Deletes every cached reply made from any of these sessions (withdrawal). Returns how many replies. */
  forgetSessions(sessionIds: readonly string[]): Promise<number>;
  count(): Promise<number>;
  close(): Promise<void>;
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
   * The same store (same data, same guarantees) for work a participant is waiting on, i.e. a chat message's
   * acknowledgement: its calls and transactions must not queue behind background writes (checkpoints,
   * telemetry, replies being stored). SQLite: the store itself (one connection, statements run at once).
   * PostgreSQL: a pool of its own (`PGPOOL_INTERACTIVE_MAX`, default 20), so under load a send waits for
   * other sends only, not behind hundreds of queued background statements. Closed with the store.
   */
  readonly interactive: Store;
  /** Cluster-wide named locks for periodic jobs (lockTypes.ts). */
  readonly locks: NamedLocks;
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
