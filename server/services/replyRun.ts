import type { CompletionResult, ProviderError } from '../../lib/llm/provider';
import type { ServiceContext, SessionContext } from './serviceContext';
import { buildConversation } from './conversation';
import type { ReplyCheckpoint } from './replyCheckpoint';
import type { ReplyRunOptions } from './replyRunOptions';
import { abortReply, type InFlight } from './inFlightReply';
import { storeReplyRetrying } from './replyStore';
import { retryWhileUnavailable } from './storeRetry';
import { dropNul } from './textBoundary';
import { assistantOf } from '../../common/assistantMode';


/** setTimeout silently fires at once for delays beyond 2^31−1 ms. */
const timerDelay = (ms: number) => Math.min(Math.max(0, ms), 2 ** 31 - 1);

/**
 * Streams one reply from the condition's provider to the session's sockets, checkpointing it for crash recovery,
 * and stores its outcome. Never rejects: every reply ends as a stored message (done, stopped, failed or watchdog)
 * or, when even that fails, with a chat:error and its checkpoint left for start-up recovery.
 * A `review` or `wizard` condition's reply goes to the researcher console instead (server/wizard/desk.ts).
 */
export async function runReply(ctx: ServiceContext, s: SessionContext, f: InFlight, options: ReplyRunOptions): Promise<void> {
  if (assistantOf(s.condition).mode !== 'model' && ctx.wizard) return ctx.wizard.run(s, f, options);
  const sessionId = s.session.id;
  let checkpoint: ReplyCheckpoint | undefined;
  const { result } = await streamFromProvider(ctx, s, f, options, {
    signal: f.abort.signal,
    start: (providerName) => {
      checkpoint = options.checkpoints.track({ replyId: f.replyId, sessionId, provider: providerName }, () => f.text);
    },
    onText: () => {
      checkpoint?.onText();
      scheduleDeltaPush(ctx, f);
    },
  });
  // Every streamed fragment reaches the participant before chat:done / chat:error.
  pushPendingDelta(ctx, f);
  try {
    // A checkpoint write still in flight lands before the reply's transaction deletes the row.
    await checkpoint?.close();
    await storeReplyRetrying(ctx, s, f, result, options.replyTimeoutMs);
  } catch (err) {
    // The checkpoint (if any) stays: a restart's recovery stores this reply as interrupted with its text.
    ctx.log.error({ err, sessionId }, 'could not store reply');
    ctx.push(sessionId, 'chat:error', { replyId: f.replyId, message: 'The reply could not be saved. Please press Retry.', retryable: true, partial: null });
  }
}

/** Where the streamed text of a provider call goes (the participant, or the researcher console). */
export interface ReplySink {
  /** Aborts the provider call (the reply's own signal, or one that also ends when a researcher answers first). */
  signal: AbortSignal;
  /** Called once the provider is known, before the call. */
  start?: (providerName: string) => void;
  /** Called after each fragment was appended to f.text. */
  onText: () => void;
}

/**
 * Calls the condition's provider with the session's conversation, appending streamed text to f.text, under
 * the reply's watchdog and the session's time limit. Never rejects: a provider that throws, or ignores its
 * abort past the grace period, gives a result built from what had streamed. Sets f.finished when it returns.
 */
export async function streamFromProvider(
  ctx: ServiceContext,
  s: SessionContext,
  f: InFlight,
  options: ReplyRunOptions,
  sink: ReplySink,
): Promise<{ result: CompletionResult; startedAt: number }> {
  const sessionId = s.session.id;
  const startedAt = ctx.now();
  let firstDeltaAt: number | null = null;
  const timers = [setTimeout(() => abortReply(f, 'watchdog'), timerDelay(options.replyTimeoutMs))];
  // The session's time limit ends its reply too (the sweep also does, for a clock that jumps).
  if (f.deadline !== null) timers.push(setTimeout(() => abortReply(f, 'time_limit'), timerDelay(f.deadline - startedAt)));
  let providerName: string = s.condition.provider;
  // What we store when the provider threw, or ignored the abort and we stopped waiting for it.
  const fallback = (finishReason: string, error?: ProviderError): CompletionResult => ({
    text: f.text,
    usage: null,
    provider: providerName,
    model: s.condition.model,
    providerUrl: null,
    systemFingerprint: null,
    finishReason,
    ttftMs: firstDeltaAt === null ? null : firstDeltaAt - startedAt,
    latencyMs: ctx.now() - startedAt,
    attempts: 1,
    interrupted: error !== undefined && f.text.length > 0,
    ...(error ? { error } : {}),
  });
  let result: CompletionResult;
  try {
    const { provider } = ctx.providers(s.condition);
    providerName = provider.name;
    sink.start?.(provider.name);
    // A read cut by a brief database outage is retried (it changes nothing), not turned into an error reply.
    const read = await retryWhileUnavailable(ctx, 'conversation history', () => ctx.store.messages.listForSession(sessionId), undefined, { sessionId, replyId: f.replyId });
    f.storeWaitMs += read.waitedMs;
    const history = read.value;
    const call = provider.complete({
      model: s.condition.model,
      messages: buildConversation(s.condition, s.task, history),
      temperature: s.condition.temperature,
      maxTokens: s.condition.max_tokens,
      signal: sink.signal,
      sessionId,
      onDelta: (delta) => {
        // The boundary rule for text (textBoundary.ts): a model may stream NUL too. Only NUL here: a surrogate pair
        // split over two deltas is whole again in the stored reply, which replyOutcome cleans in full.
        const text = dropNul(delta);
        if (f.finished || text.length === 0) return;
        firstDeltaAt ??= ctx.now();
        f.text += text;
        f.unpushed += text;
        sink.onText();
        if (f.deadline !== null && ctx.now() >= f.deadline) abortReply(f, 'time_limit');
      },
    });
    result = await untilSettledOrAbandoned(ctx, call, f, sink.signal, options.abortGraceMs, () => fallback('aborted'));
  } catch (err) {
    // Providers should not throw; if one does (or cannot even be built), the reply still ends as a stored error.
    ctx.log.error({ err, sessionId }, 'provider threw');
    result = fallback('error', { kind: 'network', message: (err as Error).message, retryable: true });
  } finally {
    for (const t of timers) clearTimeout(t);
    f.finished = true;
  }
  return { result, startedAt };
}

/**
 * Fragments of one reply that arrive together (one socket read, or one batch from the provider thread)
 * go out as one chat:delta, pushed by process.nextTick, i.e. as soon as the code handling that read is
 * done. When the server keeps up this is one push per provider chunk; when it falls behind, the chunks
 * that queued up meanwhile share one socket write. (setImmediate would also batch across reads, but
 * waits for the whole poll phase: +17 ms at the p50 with 500 participants, BENCHMARKS.md.)
 */
function scheduleDeltaPush(ctx: ServiceContext, f: InFlight): void {
  if (f.pushScheduled) return;
  f.pushScheduled = true;
  process.nextTick(pushPendingDelta, ctx, f);
}

function pushPendingDelta(ctx: ServiceContext, f: InFlight): void {
  f.pushScheduled = false;
  const text = f.unpushed;
  if (text.length === 0) return;
  f.unpushed = '';
  ctx.push(f.sessionId, 'chat:delta', { replyId: f.replyId, text });
}

/**
 * The provider's result, or — once the reply was aborted and the provider has not returned within the
 * grace period — the fallback, so a provider that ignores its signal cannot keep the session busy.
 */
async function untilSettledOrAbandoned(
  ctx: ServiceContext,
  call: Promise<CompletionResult>,
  f: InFlight,
  signal: AbortSignal,
  abortGraceMs: number,
  fallback: () => CompletionResult,
): Promise<CompletionResult> {
  let grace: NodeJS.Timeout | undefined;
  const abandoned = new Promise<CompletionResult>((resolve) => {
    const giveUp = () => {
      grace = setTimeout(() => {
        ctx.log.warn({ sessionId: f.sessionId, replyId: f.replyId, abortedBy: f.abortedBy }, 'provider ignored abort; reply ended without it');
        resolve(fallback());
      }, abortGraceMs);
    };
    if (signal.aborted) giveUp();
    else signal.addEventListener('abort', giveUp, { once: true });
  });
  // If we stop waiting, a later rejection of the abandoned call must not become an unhandled rejection.
  call.catch(() => {});
  try {
    return await Promise.race([call, abandoned]);
  } finally {
    clearTimeout(grace);
  }
}
