import { describe, expect, it } from 'vitest';
import type { CompletionResult } from '../../lib/llm/provider';
import { replyOutcome } from './replyOutcome';

const result = (over: Partial<CompletionResult>): CompletionResult => ({
  text: '', usage: null, provider: 'p', model: 'm', providerUrl: null, systemFingerprint: null,
  finishReason: 'stop', ttftMs: null, latencyMs: 1, attempts: 1, interrupted: false, ...over,
});

describe('replyOutcome', () => {
  it('a finished reply is complete; a participant abort is stopped with the text that streamed', () => {
    expect(replyOutcome(result({ text: 'hi' }), 'hi', null, 1000)).toEqual({ status: 'complete', text: 'hi', error: null, finishReason: 'stop' });
    expect(replyOutcome(result({ finishReason: 'aborted' }), 'half', 'participant', 1000)).toMatchObject({ status: 'stopped', text: 'half', error: null });
  });

  it('a server-side abort is a failure: interrupted with text, error without; retryable unless the time ran out', () => {
    const aborted = result({ finishReason: 'aborted' });
    expect(replyOutcome(aborted, 'half', 'watchdog', 300)).toMatchObject({ status: 'interrupted', finishReason: 'error', error: { kind: 'timeout', retryable: true, message: 'no complete reply within 300 ms' } });
    expect(replyOutcome(aborted, '', 'shutdown', 300)).toMatchObject({ status: 'error', error: { kind: 'network', retryable: true } });
    expect(replyOutcome(aborted, 'half', 'time_limit', 300)).toMatchObject({ status: 'interrupted', error: { kind: 'timeout', retryable: false } });
  });

  it('a provider error is interrupted when text arrived, else error; a completed reply wins over a late abort cause', () => {
    const error = { kind: 'stream' as const, message: 'cut', retryable: true };
    expect(replyOutcome(result({ finishReason: 'error', error, interrupted: true, text: 'ab' }), 'ab', null, 1)).toMatchObject({ status: 'interrupted', error });
    expect(replyOutcome(result({ finishReason: 'error', error }), '', null, 1)).toMatchObject({ status: 'error', error });
    expect(replyOutcome(result({ text: 'done' }), 'done', 'watchdog', 1)).toMatchObject({ status: 'complete', error: null });
  });
});
