/**
 * What a participant hands in: artifact drafts and versions, uploads and survey answers. Part of the storage
 * contract: lib/storage/contract/store.ts re-exports everything here, and code imports it from there.
 */

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
  /** One survey submission's answers, in the order given (one statement on PostgreSQL). */
  insert(answers: readonly SurveyAnswerRow[]): Promise<void>;
  listForSession(sessionId: string): Promise<SurveyAnswerRow[]>;
  hasAnswers(sessionId: string): Promise<boolean>;
}
