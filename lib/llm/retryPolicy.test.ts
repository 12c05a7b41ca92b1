import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { backoffDelayMs, classifyError, retryAfterMs, sleepUnlessAborted } from './retryPolicy';

const noCtx = { timedOut: false, responseStarted: false, streaming: false };

describe('retry policy', () => {
  it('backs off exponentially with equal jitter, capped', () => {
    const opts = { baseMs: 100, maxMs: 1_000 };
    expect(backoffDelayMs(1, { ...opts, random: () => 0 })).toBe(50);
    expect(backoffDelayMs(1, { ...opts, random: () => 0.999999 })).toBe(100);
    expect(backoffDelayMs(3, { ...opts, random: () => 0.5 })).toBe(300); // 400 → 200 + 100
    expect(backoffDelayMs(10, { ...opts, random: () => 1 })).toBe(1_000);
  });

  it('reads Retry-After in seconds, as a date, and retry-after-ms', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2_000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0.25' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '120', 'retry-after': '9' }))).toBe(120);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });

  it('classifies HTTP statuses: 429 and 5xx retryable, other 4xx not', () => {
    const err = (status: number, headers: Record<string, string> = {}) => OpenAI.APIError.generate(status, { error: { message: 'x' } }, undefined, new Headers(headers));
    expect(classifyError(err(429, { 'retry-after': '1' }), noCtx)).toEqual({ error: expect.objectContaining({ kind: 'rate_limit', status: 429, retryable: true }), retryAfterMs: 1_000 });
    expect(classifyError(err(502), noCtx).error).toMatchObject({ kind: 'server', status: 502, retryable: true });
    expect(classifyError(err(401), noCtx).error).toMatchObject({ kind: 'client', status: 401, retryable: false });
    expect(classifyError(err(404), noCtx).error.retryable).toBe(false);
  });

  it('classifies timeouts, broken streams and connection failures', () => {
    expect(classifyError(new OpenAI.APIConnectionTimeoutError(), noCtx).error.kind).toBe('timeout');
    expect(classifyError(new Error('aborted'), { ...noCtx, timedOut: true }).error.kind).toBe('timeout');
    expect(classifyError(new TypeError('terminated'), { timedOut: false, responseStarted: true, streaming: true }).error.kind).toBe('stream');
    expect(classifyError(new OpenAI.APIConnectionError({ message: 'ECONNREFUSED' }), noCtx).error).toMatchObject({ kind: 'network', retryable: true });
  });

  it('sleeps, or wakes early on abort', async () => {
    expect(await sleepUnlessAborted(5)).toBe(false);
    const c = new AbortController();
    const t0 = Date.now();
    setTimeout(() => c.abort(), 20);
    expect(await sleepUnlessAborted(5_000, c.signal)).toBe(true);
    expect(Date.now() - t0).toBeLessThan(1_000);
  });
});
