/**
 * When and how long to wait before retrying a model call: exponential backoff with jitter, and the
 * provider's Retry-After when it sends one. Also maps thrown errors to `ProviderError` kinds.
 */
import OpenAI from 'openai';
import type { ProviderError } from './provider';

export interface BackoffOptions {
  /** Delay before the first retry, before jitter (ms). */
  baseMs: number;
  /** Upper bound for any backoff delay (ms). */
  maxMs: number;
  /** Source of randomness in [0, 1); injectable for tests. */
  random?: () => number;
}

/**
 * Delay before retry number `retry` (1 = first retry): base·2^(retry−1), capped at maxMs, then
 * "equal jitter" — uniformly between half and all of it — so clients that failed together spread out
 * but never retry immediately.
 */
export function backoffDelayMs(retry: number, options: BackoffOptions): number {
  const exp = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, retry - 1));
  const r = (options.random ?? Math.random)();
  return Math.round(exp / 2 + (exp / 2) * r);
}

/**
 * Milliseconds the provider asked us to wait, from `retry-after-ms` or `retry-after` (seconds or an
 * HTTP date); undefined when absent or unreadable.
 */
export function retryAfterMs(headers: Headers | undefined | null, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** What went wrong in one attempt, as recorded and as used to decide on a retry. */
export interface ClassifiedError {
  error: ProviderError;
  /** Provider-requested wait before retrying (ms), when it said so. */
  retryAfterMs?: number;
}

export interface ClassifyContext {
  /** Our own timer fired (no response or no stream chunk within the timeout). */
  timedOut: boolean;
  /** Response headers had arrived with status 200 (a stream or body was being read). */
  responseStarted: boolean;
  streaming: boolean;
}

/** Maps anything thrown during an attempt to a ProviderError kind. */
export function classifyError(err: unknown, ctx: ClassifyContext): ClassifiedError {
  const message = err instanceof Error ? err.message : String(err);
  if (ctx.timedOut || err instanceof OpenAI.APIConnectionTimeoutError) {
    return { error: { kind: 'timeout', message: `Timed out: ${message}`, retryable: true } };
  }
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    const status = err.status;
    const after = retryAfterMs(err.headers);
    const withAfter = after === undefined ? {} : { retryAfterMs: after };
    if (status === 429) return { error: { kind: 'rate_limit', message, status, retryable: true }, ...withAfter };
    if (status >= 500) return { error: { kind: 'server', message, status, retryable: true }, ...withAfter };
    return { error: { kind: 'client', message, status, retryable: false } };
  }
  if (ctx.responseStarted) {
    // Headers said 200, then the body broke off (socket closed, bad chunk, an error event in the stream).
    const kind = ctx.streaming ? 'stream' : 'network';
    return { error: { kind, message: `Response broke off: ${message}`, retryable: true } };
  }
  return { error: { kind: 'network', message, retryable: true } };
}

/** Resolves after `ms`, or early with `true` when `signal` aborts. */
export function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(false);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
