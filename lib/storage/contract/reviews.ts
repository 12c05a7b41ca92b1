/**
 * Store contract of researcher-in-the-loop replies (issue 17; table reply_reviews, migration 022).
 * One row per assistant reply of a `review` or `wizard` condition. While it is open (waiting or claimed)
 * the reply has a reply.started event and no message; `resolve` is called inside the transaction that
 * stores the message and its reply.finished event, so a reply is sent exactly once.
 */
import type { ReplyOrigin } from '../../../common/assistantMode';

export type ReviewMode = 'review' | 'wizard';
export type ReviewState = 'waiting' | 'claimed' | 'sent' | 'fallback' | 'discarded';
export const OPEN_REVIEW_STATES: readonly ReviewState[] = ['waiting', 'claimed'];

/** What the model's draft cost and how it streamed (kept for the message's provenance and cost by origin). */
export interface DraftMeta {
  provider: string | null;
  providerUrl: string | null;
  model: string | null;
  usage: { promptTokens: number; completionTokens: number; totalTokens: number } | null;
  ttftMs: number | null;
  durationMs: number | null;
  finishReason: string | null;
  attempts: number | null;
  systemFingerprint: string | null;
  error: { kind: string; message: string; status?: number; retryable: boolean } | null;
}

export interface ReviewRow {
  replyId: string;
  sessionId: string;
  studyId: string;
  replyTo: string;
  mode: ReviewMode;
  state: ReviewState;
  /** The model's draft once it ended (null while it streams, or when no draft was made). */
  draftText: string | null;
  draftMeta: DraftMeta | null;
  /** The researcher holding the claim (admin actor). Never exported to science files. */
  claimedBy: string | null;
  claimedAt: number | null;
  finalText: string | null;
  origin: ReplyOrigin | null;
  editDistance: number | null;
  diff: string | null;
  waitMs: number | null;
  createdAt: number;
  deadlineAt: number;
  resolvedAt: number | null;
  updatedAt: number;
}

export type NewReview = Pick<ReviewRow, 'replyId' | 'sessionId' | 'studyId' | 'replyTo' | 'mode' | 'createdAt' | 'deadlineAt'>;

export interface ReviewResolution {
  state: Exclude<ReviewState, 'waiting' | 'claimed'>;
  /** Who sent it (null: the timeout or the system). Must hold the claim when the review is claimed by someone else. */
  actor: string | null;
  finalText: string | null;
  origin: ReplyOrigin | null;
  editDistance: number | null;
  diff: string | null;
  waitMs: number;
  at: number;
}

export interface ReviewsRepo {
  /** Opens the review of a reply (state waiting); false when the reply already has one (a resumed reply). */
  insertIfAbsent(r: NewReview): Promise<boolean>;
  get(replyId: string): Promise<ReviewRow | undefined>;
  /** Stores the model's finished draft on an open review; false when it is no longer open. */
  saveDraft(replyId: string, text: string, meta: DraftMeta, now: number): Promise<boolean>;
  /**
   * Claims an open review for `actor` when nobody else holds it (a store write, so two researchers on two
   * nodes cannot both win). Returns the review as it is after the attempt (claimedBy tells who holds it).
   */
  claim(replyId: string, actor: string, now: number): Promise<ReviewRow | undefined>;
  /** Gives the claim back (state waiting again); false unless `actor` held it. */
  release(replyId: string, actor: string, now: number): Promise<boolean>;
  /**
   * Closes an open review (call inside the transaction that stores the reply). False when it was already
   * closed, or is claimed by someone other than `resolution.actor` (a null actor — the timeout — overrides a claim).
   */
  resolve(replyId: string, resolution: ReviewResolution): Promise<boolean>;
  /** Open reviews (waiting or claimed), oldest first; of one study, or of all. */
  listOpen(studyId?: string): Promise<ReviewRow[]>;
  listForSession(sessionId: string): Promise<ReviewRow[]>;
}
