import { cleanText } from './textBoundary';
import type { CompletionResult, ProviderError } from '../../lib/llm/provider';
import type { MessageStatus } from '../../common/session';

/**
 * Who aborted a reply: the participant (Stop → stored as stopped); our watchdog, a server shutdown or the
 * session's time limit (→ stored as interrupted when text had streamed, else error).
 */
export type AbortCause = 'participant' | 'watchdog' | 'shutdown' | 'time_limit';

export interface ReplyOutcome {
  status: MessageStatus;
  /** The stored text: the provider's, or what had streamed when the provider returned none. */
  text: string;
  error: ProviderError | null;
  /** 'error' for replies the server cut (watchdog, shutdown, time limit), else the provider's. */
  finishReason: string;
}

/** How a finished reply is stored, from the provider's result, the text that streamed and who aborted it. */
export function replyOutcome(result: CompletionResult, streamed: string, abortedBy: AbortCause | null, replyTimeoutMs: number): ReplyOutcome {
  const text = cleanText(result.text.length > 0 || streamed.length === 0 ? result.text : streamed);
  if (result.finishReason === 'aborted' && abortedBy !== null && abortedBy !== 'participant') {
    const error: ProviderError =
      abortedBy === 'watchdog'
        ? { kind: 'timeout', message: `no complete reply within ${replyTimeoutMs} ms`, retryable: true }
        : abortedBy === 'time_limit'
          ? { kind: 'timeout', message: 'the session time limit ended during the reply', retryable: false }
          : { kind: 'network', message: 'the server shut down during the reply', retryable: true };
    return { status: text.length > 0 ? 'interrupted' : 'error', text, error, finishReason: 'error' };
  }
  const error = result.error ?? null;
  const status: MessageStatus =
    result.finishReason === 'aborted' ? 'stopped' : error ? (result.interrupted || text.length > 0 ? 'interrupted' : 'error') : 'complete';
  return { status, text, error, finishReason: result.finishReason };
}
