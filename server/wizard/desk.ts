import { assistantOf, type AssistantConfig } from '../../common/assistantMode';
import type { MessageRow } from '../../lib/storage';
import { OPEN_REVIEW_STATES, type DraftMeta, type ReviewMode, type ReviewRow } from '../../lib/storage';
import { loadSession, ServiceError, type ReplyDesk, type ReplyResumer, type ServiceContext, type SessionContext } from '../services/serviceContext';
import { abortReply, newInFlight, type InFlight } from '../services/inFlightReply';
import { streamFromProvider } from '../services/replyRun';
import type { ReplyRunOptions } from '../services/replyRunOptions';
import type { CompletionResult } from '../../lib/llm/provider';
import { finishReview, type ReviewOutcome } from './finishReview';
import { draftChanges, originOf, type ResearcherAction } from './provenance';

/** What the researcher console is told (server/wizard/consoleSocket.ts sends it to the study's researchers). */
export interface ConsoleFeed {
  /** The study's queue changed (a reply started waiting, was claimed, released or sent). */
  queueChanged(studyId: string): void;
  /** A fragment of a draft the researcher may see; `done` with the whole text once it ended. */
  draft(studyId: string, replyId: string, text: string, done: boolean): void;
}

const silentFeed: ConsoleFeed = { queueChanged: () => undefined, draft: () => undefined };

/** A reviewed reply waiting on this node: the participant's in-flight reply, and the model's draft stream. */
interface Waiting {
  s: SessionContext;
  f: InFlight;
  /** The model's draft: its own in-flight record, so ending the draft does not end the participant's wait. */
  draft: InFlight;
  draftVisible: boolean;
  /** Resolves once the draft has ended and was stored (at once when it was stored before a restart). */
  drafting: Promise<void>;
  settle: () => void;
}

/** Longest reply a researcher may send (characters). */
export const MAX_RESEARCHER_REPLY_CHARS = 20_000;

/**
 * Researcher-in-the-loop replies. In a `review` or `wizard` condition the participant's reply (its reply.started
 * is stored by the chat service) opens a review row, the model drafts to the researcher console only (the
 * participant sees the typing indicator), the draft is stored when it ends, and the reply waits until a
 * researcher sends it (approve / edit / replace / a canned reply), discards it, or the timeout sends the
 * fallback. Every end goes through finishReview (one transaction, exactly once). The wait is kept in the store,
 * so a restart resumes it (recoverReviews.ts) instead of losing or double-sending the reply.
 */
export class WizardDesk implements ReplyDesk {
  private readonly waiting = new Map<string, Waiting>();
  feed: ConsoleFeed = silentFeed;

  constructor(private readonly ctx: ServiceContext) {}

  /** Runs a reviewed reply to its end (called by runReply for a review/wizard condition). Never rejects. */
  async run(s: SessionContext, f: InFlight, options: ReplyRunOptions): Promise<void> {
    try {
      await this.runUntilAnswered(s, f, options);
    } catch (err) {
      // The review row stays open: a restart resumes the wait (recoverReviews.ts).
      this.ctx.log.error({ err, sessionId: s.session.id, replyId: f.replyId }, 'reviewed reply failed');
      this.ctx.push(s.session.id, 'chat:error', { replyId: f.replyId, message: 'The reply could not be saved. Please press Retry.', retryable: true, partial: null });
    }
  }

  private async runUntilAnswered(s: SessionContext, f: InFlight, options: ReplyRunOptions): Promise<void> {
    const cfg = assistantOf(s.condition);
    const { store } = this.ctx;
    const now = this.ctx.now();
    await store.reviews.insertIfAbsent({
      replyId: f.replyId,
      sessionId: s.session.id,
      studyId: s.study.id,
      replyTo: f.replyTo,
      mode: cfg.mode as ReviewMode,
      createdAt: now,
      deadlineAt: now + cfg.timeout_seconds * 1000,
    });
    const review = await store.reviews.get(f.replyId);
    if (!review || !OPEN_REVIEW_STATES.includes(review.state)) return;
    let settle!: () => void;
    const answered = new Promise<void>((resolve) => (settle = resolve));
    const w: Waiting = {
      s,
      f,
      draft: newInFlight(s.session.id, f.replyId, f.replyTo, f.deadline),
      draftVisible: review.mode === 'review' || cfg.show_model_draft,
      drafting: Promise.resolve(),
      settle,
    };
    this.waiting.set(f.replyId, w);
    const timer = setTimeout(() => void this.timeOut(f.replyId), Math.min(2 ** 31 - 1, Math.max(0, review.deadlineAt - now)));
    const onAbort = () => void this.participantSideAbort(w);
    f.abort.signal.addEventListener('abort', onAbort, { once: true });
    this.feed.queueChanged(s.study.id);
    // The turn ends when it is answered, even while the draft it cut short is still being stored: the participant has
    // had chat:done and may write again (a send waits for the draft itself). A draft that fails before the answer
    // ends the turn with an error, as before; one that fails after it is logged.
    let ended = false;
    try {
      if (review.draftText === null)
        w.drafting = this.draft(w, options).catch((err: unknown) => {
          if (!ended) throw err;
          this.ctx.log.error({ err, replyId: f.replyId }, 'could not store the model draft of a reviewed reply');
        });
      await Promise.race([answered, w.drafting]);
      await answered;
    } finally {
      ended = true;
      clearTimeout(timer);
      f.abort.signal.removeEventListener('abort', onAbort);
      abortReply(w.draft, 'participant');
      this.waiting.delete(f.replyId);
      this.feed.queueChanged(s.study.id);
    }
  }

  /** Streams the model's draft to the console (when the researcher may see it) and stores it once it ended. */
  private async draft(w: Waiting, options: ReplyRunOptions): Promise<void> {
    const studyId = w.s.study.id;
    let sent = 0;
    const { result } = await streamFromProvider(this.ctx, w.s, w.draft, options, {
      signal: w.draft.abort.signal,
      onText: () => {
        if (!w.draftVisible) return;
        const text = w.draft.text.slice(sent);
        sent = w.draft.text.length;
        this.feed.draft(studyId, w.f.replyId, text, false);
      },
    });
    // Cut by a shutdown: not stored, so the restart drafts it again (a half draft would pass for the whole).
    if (w.f.abortedBy === 'shutdown') return;
    const text = w.draft.text.length > 0 ? w.draft.text : result.text;
    if (await this.ctx.store.reviews.saveDraft(w.f.replyId, text, draftMeta(result), this.ctx.now())) {
      if (w.draftVisible) this.feed.draft(studyId, w.f.replyId, text, true);
      // The queue shows whether each draft is ready: every console reloads it (not only the one watching this reply).
      this.feed.queueChanged(studyId);
    }
  }

  /** The model's draft so far, if the researcher may see it and it is streaming on this node. */
  liveDraft(replyId: string): string | null {
    const w = this.waiting.get(replyId);
    return w?.draftVisible ? w.draft.text : null;
  }

  /** The study file's assistant block of the review's condition. */
  async assistantFor(review: ReviewRow): Promise<AssistantConfig> {
    return assistantOf((await loadSession(this.ctx, review.sessionId)).condition);
  }

  async claim(replyId: string, actor: string): Promise<ReviewRow> {
    const row = await this.ctx.store.reviews.claim(replyId, actor, this.ctx.now());
    if (!row) throw new ServiceError('not_found', 'no such reply waiting for review');
    if (!OPEN_REVIEW_STATES.includes(row.state)) throw new ServiceError('conflict', `this reply was already ${row.state}`);
    if (row.claimedBy !== actor) throw new ServiceError('conflict', 'another researcher has claimed this reply');
    await this.audit(actor, 'wizard_claim', row, {});
    this.feed.queueChanged(row.studyId);
    return row;
  }

  async release(replyId: string, actor: string): Promise<void> {
    const row = await this.open(replyId);
    if (!(await this.ctx.store.reviews.release(replyId, actor, this.ctx.now()))) throw new ServiceError('conflict', 'you do not hold the claim on this reply');
    this.feed.queueChanged(row.studyId);
  }

  /** A researcher's reply: acknowledged after COMMIT with the stored message. */
  async send(replyId: string, actor: string, action: ResearcherAction, text: string | undefined): Promise<MessageRow> {
    let review = await this.open(replyId);
    const live = this.waiting.get(replyId);
    if (review.draftText === null && live && action !== 'approve') {
      // Answered before the model finished: what it had drafted is the draft (stored, then compared with the reply).
      abortReply(live.draft, 'participant');
      await live.drafting;
      review = await this.open(replyId);
    }
    if (review.claimedBy !== null && review.claimedBy !== actor) throw new ServiceError('conflict', 'another researcher has claimed this reply');
    if (action === 'approve') {
      if (review.mode !== 'review') throw new ServiceError('invalid_input', 'there is no draft to approve in a wizard condition; write a reply', 'action');
      if (review.draftText === null) throw new ServiceError('conflict', 'the model is still drafting; wait for the draft to end');
      if (review.draftText.trim() === '') throw new ServiceError('conflict', 'the draft is empty; replace it with a reply');
    }
    const finalText = action === 'approve' ? review.draftText! : (text ?? '');
    if (finalText.trim() === '') throw new ServiceError('invalid_input', 'the reply is empty', 'text');
    if (finalText.length > MAX_RESEARCHER_REPLY_CHARS)
      throw new ServiceError('too_large', `the reply is too long: ${finalText.length} characters, at most ${MAX_RESEARCHER_REPLY_CHARS}`, 'text');
    const origin = originOf(review.mode, action, review.draftText, finalText);
    const row = await this.end(review, { kind: 'sent', actor, text: finalText, origin, ...draftChanges(review.draftText, finalText), fallback: false });
    await this.audit(actor, 'wizard_send', review, { origin });
    return row;
  }

  /** Ends the turn without a reply (the participant sees it stopped and may press Retry). */
  async discard(replyId: string, actor: string): Promise<void> {
    const review = await this.open(replyId);
    if (review.claimedBy !== null && review.claimedBy !== actor) throw new ServiceError('conflict', 'another researcher has claimed this reply');
    await this.end(review, { kind: 'discarded', actor, reason: 'researcher' });
    await this.audit(actor, 'wizard_discard', review, {});
  }

  /** Nobody answered in time: the model's draft (review) or the holding message (wizard, or no draft yet). */
  async timeOut(replyId: string): Promise<void> {
    try {
      const review = await this.ctx.store.reviews.get(replyId);
      if (!review || !OPEN_REVIEW_STATES.includes(review.state)) return this.waiting.get(replyId)?.settle();
      const cfg = await this.assistantFor(review);
      const useDraft = review.mode === 'review' && review.draftText !== null && review.draftText.trim() !== '';
      const text = useDraft ? review.draftText! : cfg.fallback.holding_message;
      await this.end(review, { kind: 'sent', actor: null, text, origin: 'fallback', ...draftChanges(review.draftText, text), fallback: true });
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'conflict') return this.waiting.get(replyId)?.settle();
      this.ctx.log.error({ err, replyId }, 'could not send the fallback of a reviewed reply');
    }
  }

  /** The participant pressed Stop, the session's time ran out, or the server is shutting down. */
  private async participantSideAbort(w: Waiting): Promise<void> {
    const cause = w.f.abortedBy;
    abortReply(w.draft, cause ?? 'participant');
    // Shutdown: the review stays open in the store, and the restart resumes the wait.
    if (cause === 'shutdown' || cause === null) return w.settle();
    try {
      const review = await this.ctx.store.reviews.get(w.f.replyId);
      if (review && OPEN_REVIEW_STATES.includes(review.state)) await this.end(review, { kind: 'discarded', actor: null, reason: cause });
    } catch (err) {
      if (!(err instanceof ServiceError && err.code === 'conflict')) this.ctx.log.error({ err, replyId: w.f.replyId }, 'could not end a reviewed reply');
    }
    w.settle();
  }

  /** Stores the end (exactly once, across nodes too) and releases the participant's wait on this node. */
  private async end(review: ReviewRow, outcome: ReviewOutcome): Promise<MessageRow> {
    const w = this.waiting.get(review.replyId);
    if (w) w.f.finished = true;
    try {
      const row = await finishReview(this.ctx, review, outcome);
      if (w) abortReply(w.draft, 'participant');
      w?.settle();
      this.feed.queueChanged(review.studyId);
      return row;
    } catch (err) {
      if (w) {
        // Ended by someone else (another node, the timeout): the wait is over. Still open: a Stop may end it.
        const now = await this.ctx.store.reviews.get(review.replyId).catch(() => undefined);
        if (now && !OPEN_REVIEW_STATES.includes(now.state)) w.settle();
        else w.f.finished = false;
      }
      throw err;
    }
  }

  /**
   * One open review whose node stopped (this node's previous run, or a dead node's, found by the periodic takeover):
   * resumed on this node through `chat` (true), closed without a reply when its session ended meanwhile, or left to
   * the live node that holds its reply's lease.
   */
  async resumeOpenReview(review: ReviewRow, chat: ReplyResumer): Promise<boolean> {
    if (!OPEN_REVIEW_STATES.includes(review.state)) return false;
    let s: SessionContext | undefined;
    try {
      s = await loadSession(this.ctx, review.sessionId);
    } catch (err) {
      this.ctx.log.warn({ err, replyId: review.replyId }, 'a reviewed reply refers to a session or study that is gone; closing it');
    }
    if (s && s.session.status === 'active' && s.session.step === 'workspace') return chat.resumeReply(s, review.replyId, review.replyTo);
    await this.closeUnanswerable(review.replyId);
    return false;
  }

  /** Closes a review whose session ended while it waited (recovery): no reply is sent. */
  async closeUnanswerable(replyId: string): Promise<void> {
    const review = await this.ctx.store.reviews.get(replyId);
    if (!review || !OPEN_REVIEW_STATES.includes(review.state)) return;
    await finishReview(this.ctx, review, { kind: 'discarded', actor: null, reason: 'session_ended' }).catch((err: unknown) => {
      if (!(err instanceof ServiceError && err.code === 'conflict')) throw err;
    });
  }

  private async open(replyId: string): Promise<ReviewRow> {
    const review = await this.ctx.store.reviews.get(replyId);
    if (!review) throw new ServiceError('not_found', 'no such reply waiting for review');
    if (!OPEN_REVIEW_STATES.includes(review.state)) throw new ServiceError('conflict', `this reply was already ${review.state}`);
    return review;
  }

  /**
   * Audits a researcher's action. The entry's actor is the login's actor (the dataset's manifest lists recent
   * actors); which researcher it was is in the details, which stay in the audit log.
   */
  private async audit(researcher: string, action: string, review: ReviewRow, details: Record<string, unknown>): Promise<void> {
    const actor = researcher.split('#')[0]!;
    await this.ctx.store.audit.append({ at: this.ctx.now(), actor, action, studyId: review.studyId, details: { researcher, replyId: review.replyId, sessionId: review.sessionId, ...details } });
  }

  /** Sessions waiting on this node (tests). */
  get waitingCount(): number {
    return this.waiting.size;
  }
}

function draftMeta(r: CompletionResult): DraftMeta {
  return {
    provider: r.provider,
    providerUrl: r.providerUrl,
    model: r.model,
    usage: r.usage,
    ttftMs: r.ttftMs,
    durationMs: r.latencyMs,
    finishReason: r.finishReason,
    attempts: r.attempts,
    systemFingerprint: r.systemFingerprint,
    error: r.error ? { kind: r.error.kind, message: r.error.message, ...(r.error.status !== undefined ? { status: r.error.status } : {}), retryable: r.error.retryable } : null,
  };
}
