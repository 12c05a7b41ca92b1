/**
 * The dataset export's read-only snapshot (bounded-memory streaming) and the row shapes it yields. Part of the
 * storage contract: lib/storage/contract/store.ts re-exports everything here, and code imports it from there.
 */
import type { TelemetrySummary } from '../../../common/telemetrySummary';
import type { AttachedImage } from './judging';
import type { IdentityRow } from './participants';
import type { AuditCounts, AuditEntry } from './admin';
import type { GroupsRepo } from './groups';
import type { PreregistrationsRepo } from './preregistrations';

/** What the export reads of group sessions (migration 028), in the snapshot's transaction. */
export type ExportGroups = Pick<GroupsRepo, 'listGroups' | 'listMembers' | 'listEvents' | 'listMessages' | 'listLobbyEntries' | 'countMemberDocUpdates'>;

/** What the export reads of the pre-registration (migration 026), in the snapshot's transaction. */
export type ExportPreregistrations = Pick<PreregistrationsRepo, 'versions' | 'deviations'>;

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
  /** Researcher-in-the-loop provenance (reply_reviews, server/wizard/); null for a reply no researcher reviewed. */
  review: ExportReview | null;
}

/** What a reviewed reply's row says about where its words came from (never who the researcher was). */
export interface ExportReview {
  mode: string;
  state: string;
  origin: string | null;
  modelDraft: string | null;
  editDistance: number | null;
  diff: string | null;
  waitMs: number | null;
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

/** A judge sample of a group's shared document (migration 031): a session's sample keyed by document version. */
export interface ExportGroupJudgement extends Omit<ExportJudgement, 'artifactVersion'> {
  /** The last group_doc_updates seq the judged text was built from. */
  docVersion: number;
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
  /** Ids of the study's sessions a simulator played (empty before migration 030). */
  simulatedSessions(studyId: string): Promise<Set<string>>;
  auditCounts(studyId: string): Promise<AuditCounts>;
  auditList(options: { studyId?: string; limit?: number }): Promise<AuditEntry[]>;
  /** Judge samples of a group's shared document, by document version, rubric, model and sample (empty before migration 031). */
  groupJudgements(groupId: string): AsyncIterable<ExportGroupJudgement>;
  /** The group's Q (median of its parsed samples); null when unjudged, when no sample parsed, and before migration 031. */
  groupQuality(groupId: string): Promise<number | null>;
  /** Groups, their seats, events, room messages and lobby entries (empty before migration 028). */
  readonly groups: ExportGroups;
  /** The locked plan's versions and its deviations (empty before migration 026). */
  readonly preregistrations: ExportPreregistrations;
  close(): Promise<void>;
}
