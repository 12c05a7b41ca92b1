/**
 * The judge and the annotator: judge samples, per-session quality, annotations and the model reply cache. Part
 * of the storage contract: lib/storage/contract/store.ts re-exports everything here, and code imports it from
 * there.
 */
import type { TokenUsage } from '../../llm/provider';

/** What the audit records about an attached image (no bytes). */
export interface AttachedImage {
  field: string;
  mediaType: string;
  bytes: number;
  sha256: string;
}

/** One judge sample with everything needed to audit and repeat it. */
export interface JudgeSample {
  sessionId: string;
  rubricId: string;
  rubricVersion: string;
  rubricHash: string;
  templateHash: string;
  parserVersion: string;
  sample: number;
  requestedModel: string;
  reportedModel: string | null;
  systemFingerprint: string | null;
  provider: string;
  providerUrl: string | null;
  parameters: { temperature: number; maxTokens: number };
  seed: number;
  score: number | null;
  parseOk: boolean;
  /** Why the score is null: a parse failure reason or "transport: …". Null when parsed. */
  failureReason: string | null;
  rawReply: string | null;
  /** The reply to the format re-ask, when one was needed. */
  reaskReply: string | null;
  reasked: boolean;
  /** Summed over the sample's calls (first reply + re-ask). */
  usage: TokenUsage | null;
  latencyMs: number;
  /** True when every call of this sample came from the cache (no new request). */
  cached: boolean;
  cacheKey: string;
  /** Provider-side error of the last call, when the sample failed in transport. */
  transportError: { kind: string; status?: number; message: string } | null;
  /** With `--images attach`: the images sent with the prompt, by field, media type, size and sha256 (never the bytes). */
  images?: AttachedImage[];
  createdAt: string;
}


/**
 * A judge sample as stored: research/judge/runJudge.ts JudgeSample plus the artifact version it scored,
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

/** A judge sample of a group's shared document (migration 031): a judgement keyed by group and document version. */
export interface GroupJudgementRecord extends Omit<JudgementRecord, 'sessionId' | 'artifactVersion'> {
  groupId: string;
  /** The last group_doc_updates seq the judged text was built from. */
  docVersion: number;
}

/** Q of a group: the median of its document's samples. */
export interface GroupQualityRecord extends Omit<SessionQualityRecord, 'sessionId' | 'artifactVersion'> {
  groupId: string;
  docVersion: number;
}

/** The `group_judgements` and `group_judge_quality` tables. */
export interface GroupJudgementsRepo {
  /** Inserts a sample, replacing an earlier one for the same group/version/rubric/model/sample. */
  upsert(j: GroupJudgementRecord): Promise<void>;
  listForGroup(groupId: string): Promise<GroupJudgementRecord[]>;
  /** Every sample of a study's groups, by group formation then sample. */
  listForStudy(studyId: string): Promise<GroupJudgementRecord[]>;
  setQuality(q: GroupQualityRecord): Promise<void>;
  getQuality(groupId: string): Promise<GroupQualityRecord | undefined>;
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
 * the reply plus the sample index (research/judge/cachedModelClient.ts). Only completed replies are stored.
 * Implementations: a standalone SQLite file (lib/storage/sqlite/replyCache.ts; the default, and always for
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
