import type { CompletionResult } from '../../lib/llm/provider';
import { countTokens } from '../../common/tokens';
import { isStoreUnavailable, type MessageRow } from '../../lib/storage';
import type { ServiceContext, SessionContext } from './serviceContext';
import { messageView, participantErrorMessage } from './sessionState';
import { replyOutcome } from './replyOutcome';
import type { InFlight } from './inFlightReply';

/** How long a finished reply is retried while the store is unavailable before it is left to start-up recovery. */
const STORE_RETRY_MS = 30_000;

/**
 * storeReply, tried again while the store is briefly unavailable (a PostgreSQL restart): the reply's text is
 * in memory and its id makes the write idempotent, so an outage of up to STORE_RETRY_MS loses no reply.
 */
export async function storeReplyRetrying(ctx: ServiceContext, s: SessionContext, f: InFlight, result: CompletionResult, replyTimeoutMs: number): Promise<void> {
  const started = performance.now();
  for (let delay = 200; ; delay = Math.min(delay * 2, 3_000)) {
    try {
      // The event records the wait so far (history read and earlier attempts); an attempt whose commit was
      // lost with its answer keeps the row it stored, with that attempt's figure.
      return await storeReply(ctx, s, f, result, replyTimeoutMs, f.storeWaitMs + Math.round(performance.now() - started));
    } catch (err) {
      if (!isStoreUnavailable(err) || performance.now() - started + delay > STORE_RETRY_MS) throw err;
      ctx.log.warn({ sessionId: f.sessionId, replyId: f.replyId, retryInMs: delay }, 'store unavailable; storing the reply again shortly');
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** Stores the reply's outcome (its reply.finished event and message row, in one store call) and tells the session. */
async function storeReply(ctx: ServiceContext, s: SessionContext, f: InFlight, result: CompletionResult, replyTimeoutMs: number, storeWaitMs: number): Promise<void> {
  const { store } = ctx;
  const sessionId = s.session.id;
  const { status, text, error, finishReason } = replyOutcome(result, f.text, f.abortedBy, replyTimeoutMs);
  const now = ctx.now();
  const params = { temperature: s.condition.temperature, max_tokens: s.condition.max_tokens };
  const tokens = countTokens(text);
  const provenance = {
    provider: result.provider,
    providerUrl: result.providerUrl,
    model: result.model,
    requestedModel: s.condition.model,
    params,
    usage: result.usage,
    ttftMs: result.ttftMs,
    durationMs: result.latencyMs,
    finishReason,
    interrupted: status === 'interrupted',
    attempts: result.attempts,
    error,
  };
  // One store call: releases the lease, and stores the outcome unless an earlier attempt whose answer was lost
  // with the connection, or another node's takeover, already did (then that row comes back).
  const { message: row } = await store.storeAssistantReply({
    sessionId,
    replyId: f.replyId,
    event: {
      type: 'reply.finished',
      payload: { replyId: f.replyId, replyTo: f.replyTo, status, text, tokens, ...provenance, systemFingerprint: result.systemFingerprint, ...(storeWaitMs > 0 ? { storeWaitMs } : {}) },
    },
    now,
    message: assistantMessageRow({ id: f.replyId, sessionId, eventSeq: 0, text, replyTo: f.replyTo, status, tokens, createdAt: now }, provenance),
  });
  const view = messageView(row);
  // row.status: a takeover may have stored this reply first (as interrupted).
  if (row.status === 'complete' || row.status === 'stopped') ctx.push(sessionId, 'chat:done', { message: view });
  else
    ctx.push(sessionId, 'chat:error', {
      replyId: f.replyId,
      message: participantErrorMessage(row.error?.kind ?? 'network'),
      retryable: row.error?.retryable ?? true,
      partial: view,
    });
}

/** The provenance fields an assistant message carries (who answered, how, at what cost). */
export type ReplyProvenance = Pick<
  MessageRow,
  'provider' | 'providerUrl' | 'model' | 'requestedModel' | 'params' | 'usage' | 'ttftMs' | 'durationMs' | 'finishReason' | 'interrupted' | 'attempts' | 'error'
>;

/** An assistant message row: a reply's outcome as the chat service, the wizard desk and recovery store it. */
export function assistantMessageRow(
  m: Pick<MessageRow, 'id' | 'sessionId' | 'eventSeq' | 'text' | 'replyTo' | 'status' | 'tokens' | 'createdAt'>,
  provenance: ReplyProvenance,
): MessageRow {
  return { ...m, role: 'assistant', clientId: null, ...provenance };
}
