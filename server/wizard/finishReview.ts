import { countTokens } from '../../common/tokens';
import type { ReplyOrigin } from '../../common/assistantMode';
import type { MessageRow } from '../../lib/storage';
import type { ReviewResolution, ReviewRow } from '../../lib/storage';
import { ServiceError, type ServiceContext } from '../services/serviceContext';
import { messageView } from '../services/sessionState';
import { assistantMessageRow } from '../services/replyStore';

/** How a review ends: a text sent to the participant (by a researcher or the timeout), or no reply at all. */
export type ReviewOutcome =
  | { kind: 'sent'; actor: string | null; text: string; origin: ReplyOrigin; editDistance: number | null; diff: string | null; fallback: boolean }
  | { kind: 'discarded'; actor: string | null; reason: 'researcher' | 'participant' | 'time_limit' | 'watchdog' | 'session_ended' };

/**
 * The error kind of a reply closed without text for a reason other than the participant's own Stop
 * ("discarded:researcher", "discarded:time_limit"…): the participant's chat then says no reply was sent
 * (not "you stopped it"), and the console can tell the researcher why the reply left the queue.
 */
export const DISCARDED_KIND = 'discarded:';

/**
 * Stores the end of a reviewed reply in one transaction: the review's resolution (conditional: open, and not
 * claimed by someone else), the reply.finished event and the assistant message, with its provenance (origin,
 * the model's draft, edit distance, diff, wait). Resolves after COMMIT, then tells the session's sockets.
 * Exactly once: a second attempt (another researcher, the timeout racing a send) changes nothing and throws
 * `conflict`; a reply already stored (a resend after a lost answer) returns the stored message.
 * The researcher's id goes into the review row only (never the event or the message: both are science data).
 */
export async function finishReview(ctx: ServiceContext, review: ReviewRow, outcome: ReviewOutcome): Promise<MessageRow> {
  const now = ctx.now();
  const waitMs = Math.max(0, now - review.createdAt);
  const sent = outcome.kind === 'sent';
  const text = sent ? outcome.text : '';
  const status = sent ? 'complete' : 'stopped';
  const draft = review.draftMeta;
  const origin = sent ? outcome.origin : null;
  const modelWords = origin === 'model' || origin === 'model_edited' || (origin === 'fallback' && review.mode === 'review' && !!review.draftText);
  const resolution: ReviewResolution = {
    state: !sent ? 'discarded' : outcome.fallback ? 'fallback' : 'sent',
    actor: outcome.actor,
    finalText: sent ? text : null,
    origin,
    editDistance: sent ? outcome.editDistance : null,
    diff: sent ? outcome.diff : null,
    waitMs,
    at: now,
  };
  const tokens = countTokens(text);
  const session = await ctx.store.sessions.get(review.sessionId);
  const condition = session ? ctx.config.studies.get(session.studyId)?.conditions.find((c) => c.id === session.conditionId) : undefined;
  const row = await ctx.store.transaction(async (tx) => {
    // The reply's lease goes with its outcome (as in services/replyStore.ts); a refused resolution rolls it back.
    await tx.replyLeases.release(review.replyId);
    const already = await tx.messages.get(review.replyId);
    if (already) return already;
    if (!(await tx.reviews.resolve(review.replyId, resolution))) {
      const now = await tx.reviews.get(review.replyId);
      throw new ServiceError(
        'conflict',
        now?.state === 'claimed' ? 'another researcher has claimed this reply' : `this reply was already ${now?.state ?? 'closed'}`,
      );
    }
    // The draft's cost was spent whoever wrote the words: usage stays on the message, origin tells them apart.
    const provenance = {
      provider: draft?.provider ?? null,
      providerUrl: draft?.providerUrl ?? null,
      model: draft?.model ?? null,
      requestedModel: condition?.model ?? null,
      params: condition ? { temperature: condition.temperature, max_tokens: condition.max_tokens } : null,
      usage: draft?.usage ?? null,
      ttftMs: modelWords ? (draft?.ttftMs ?? null) : null,
      durationMs: waitMs,
      finishReason: sent ? (modelWords && origin === 'model' ? (draft?.finishReason ?? 'stop') : 'stop') : 'aborted',
      interrupted: false,
      attempts: draft?.attempts ?? null,
      error:
        outcome.kind === 'discarded' && outcome.reason !== 'participant'
          ? { kind: `${DISCARDED_KIND}${outcome.reason}`, message: 'no reply was sent', retryable: false }
          : null,
    };
    const seq = await tx.events.append(
      review.sessionId,
      'reply.finished',
      {
        replyId: review.replyId,
        replyTo: review.replyTo,
        status,
        text,
        tokens,
        ...provenance,
        systemFingerprint: draft?.systemFingerprint ?? null,
        review: {
          mode: review.mode,
          state: resolution.state,
          origin,
          modelDraft: review.draftText,
          editDistance: resolution.editDistance,
          waitMs,
          ...(outcome.kind === 'discarded' ? { discardedBy: outcome.reason } : {}),
        },
      },
      now,
      null,
    );
    const message = assistantMessageRow({ id: review.replyId, sessionId: review.sessionId, eventSeq: seq, text, replyTo: review.replyTo, status, tokens, createdAt: now }, provenance);
    await tx.messages.insert(message);
    await tx.replyProgress.delete(review.replyId);
    return message;
  });
  ctx.push(review.sessionId, 'chat:done', { message: messageView(row) });
  return row;
}
