import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cutStream, hang, httpError, reply, stallStream, startFakeOpenAI, type FakeOpenAI } from '../../tests/support/fakeOpenAI';
import { OpenAIProvider, sanitizeProviderUrl, type OpenAIProviderOptions } from './openaiProvider';
import type { CompletionRequest, LlmProvider } from './provider';
import { ProviderThread, ThreadedOpenAIProvider } from './providerThread/providerThread';

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

// The server runs these calls on a worker thread (providerThread/): the same contract must hold there.
const thread = new ProviderThread();
afterAll(() => thread.close());
const implementations: Array<[string, (options: OpenAIProviderOptions) => LlmProvider]> = [
  ['on the event loop', (options) => new OpenAIProvider(options)],
  ['on the provider thread', (options) => new ThreadedOpenAIProvider(thread, options)],
];

const ask = (extra: Partial<CompletionRequest> = {}): CompletionRequest => ({
  model: 'gpt-test-1', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello?' }], ...extra,
});

describe.each(implementations)('OpenAIProvider %s', (_where, makeProvider) => {
  async function setup(options: Partial<OpenAIProviderOptions> = {}): Promise<{ fake: FakeOpenAI; provider: LlmProvider }> {
    fake = await startFakeOpenAI();
    const provider = makeProvider({
      baseURL: fake.url, apiKey: 'test-key', timeoutMs: 2_000, maxAttempts: 3, backoffBaseMs: 10, backoffMaxMs: 40, ...options,
    });
    return { fake, provider };
  }

  it('streams a reply in order, with usage, ttft, model, fingerprint and request parameters', async () => {
    const { fake, provider } = await setup();
    fake.script(reply(['Hi', ' there', ', friend.'], { tokensPerSecond: 100, model: 'gpt-test-1-2025', systemFingerprint: 'fp_abc', usage: { prompt_tokens: 21, completion_tokens: 4 } }));
    const deltas: string[] = [];
    const res = await provider.complete(ask({ onDelta: (d) => deltas.push(d), temperature: 0.2, maxTokens: 50, seed: 7 }));
    expect(deltas).toEqual(['Hi', ' there', ', friend.']);
    expect(res.text).toBe('Hi there, friend.');
    expect(res.error).toBeUndefined();
    expect(res.finishReason).toBe('stop');
    expect(res.interrupted).toBe(false);
    expect(res.attempts).toBe(1);
    expect(res.model).toBe('gpt-test-1-2025');
    expect(res.systemFingerprint).toBe('fp_abc');
    expect(res.provider).toBe('openai-compatible');
    expect(res.providerUrl).toBe(fake.url);
    expect(res.usage).toEqual({ promptTokens: 21, completionTokens: 4, totalTokens: 25 });
    // First chunk after ~1 token at 100 tok/s; the whole reply takes ≥ 3 chunks' worth.
    expect(res.ttftMs).not.toBeNull();
    expect(res.ttftMs!).toBeGreaterThanOrEqual(5);
    expect(res.latencyMs).toBeGreaterThan(res.ttftMs!);
    const body = fake.requests[0]?.body;
    expect(body).toMatchObject({ model: 'gpt-test-1', stream: true, stream_options: { include_usage: true }, temperature: 0.2, max_tokens: 50, seed: 7 });
    expect(fake.requests[0]?.headers.authorization).toBe('Bearer test-key');
  });

  it('returns usage and fingerprint from a non-streaming call', async () => {
    const { fake, provider } = await setup();
    fake.script(reply('{"score": 4}', { systemFingerprint: 'fp_judge', usage: { prompt_tokens: 120, completion_tokens: 6 } }));
    const res = await provider.complete(ask());
    expect(res.text).toBe('{"score": 4}');
    expect(res.usage).toEqual({ promptTokens: 120, completionTokens: 6, totalTokens: 126 });
    expect(res.systemFingerprint).toBe('fp_judge');
    expect(res.model).toBe('gpt-test-1');
    expect(res.ttftMs).toBeNull();
    expect(fake.requests[0]?.body.stream).not.toBe(true);
  });

  it('waits for Retry-After after a 429, then succeeds on the second attempt', async () => {
    const { fake, provider } = await setup({ backoffBaseMs: 1, backoffMaxMs: 1 });
    fake.script(httpError(429, { retryAfter: '0.3' }), reply('ok'));
    const res = await provider.complete(ask());
    expect(res.text).toBe('ok');
    expect(res.attempts).toBe(2);
    expect(res.error).toBeUndefined();
    const [first, second] = fake.requests;
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(290);
  });

  it('exhausts retries on repeated 500s and reports a retryable server error', async () => {
    const { fake, provider } = await setup({ maxAttempts: 3 });
    fake.script(httpError(500), httpError(503), httpError(500), reply('never reached'));
    const res = await provider.complete(ask({ onDelta: () => {} }));
    expect(res.attempts).toBe(3);
    expect(fake.requests).toHaveLength(3);
    expect(res.error).toMatchObject({ kind: 'server', status: 500, retryable: true });
    expect(res.finishReason).toBe('error');
    expect(res.text).toBe('');
    expect(res.interrupted).toBe(false);
  });

  it('never retries other 4xx', async () => {
    const { fake, provider } = await setup();
    fake.script(httpError(400, { message: 'bad model' }), reply('never reached'));
    const res = await provider.complete(ask());
    expect(res.attempts).toBe(1);
    expect(res.error).toMatchObject({ kind: 'client', status: 400, retryable: false });
  });

  it('gives up after the timeout when the server does not answer', async () => {
    const { fake, provider } = await setup({ timeoutMs: 150, maxAttempts: 2 });
    fake.script(hang(), hang());
    const res = await provider.complete(ask({ onDelta: () => {} }));
    expect(res.error).toMatchObject({ kind: 'timeout', retryable: true });
    expect(res.attempts).toBe(2);
    expect(res.latencyMs).toBeGreaterThanOrEqual(300);
  });

  it('times out a stream that stalls mid-reply, keeping the partial text', async () => {
    const { fake, provider } = await setup({ timeoutMs: 150 });
    fake.script(stallStream(['Part', 'ial', ' rest'], 2));
    const res = await provider.complete(ask({ onDelta: () => {} }));
    expect(res.text).toBe('Partial');
    expect(res.interrupted).toBe(true);
    expect(res.error?.kind).toBe('timeout');
    expect(res.attempts).toBe(1);
  });

  it('does not time out a stream that is slower in all than the timeout but never silent for that long', async () => {
    const { fake, provider } = await setup({ timeoutMs: 400 });
    // 5 chunks 150 ms apart: 600 ms in all, with 250 ms to spare between two chunks on a loaded machine.
    fake.script(reply(['a', 'b', 'c', 'd', 'e'], { tokensPerSecond: 1000 / 150 }));
    const res = await provider.complete(ask({ onDelta: () => {} }));
    expect(res.error).toBeUndefined();
    expect(res.text).toBe('abcde');
    expect(res.latencyMs).toBeGreaterThan(400);
  });

  it('returns an interrupted result with partial text when a stream is cut mid-reply (no silent retry)', async () => {
    const { fake, provider } = await setup();
    fake.script(cutStream(['The ', 'first ', 'half', ' and more'], 3), reply('a retry would say this'));
    const seen: string[] = [];
    const res = await provider.complete(ask({ onDelta: (d) => seen.push(d) }));
    expect(res.text).toBe('The first half');
    expect(seen.join('')).toBe('The first half');
    expect(res.interrupted).toBe(true);
    expect(res.error).toMatchObject({ kind: 'stream', retryable: true });
    expect(res.finishReason).toBe('error');
    expect(res.usage).toBeNull();
    expect(res.attempts).toBe(1);
    expect(fake.requests).toHaveLength(1);
  });

  it('retries a stream that broke before any text arrived', async () => {
    const { fake, provider } = await setup();
    fake.script(cutStream(['never', 'seen'], 0), reply('second try'));
    const res = await provider.complete(ask({ onDelta: () => {} }));
    expect(res.text).toBe('second try');
    expect(res.attempts).toBe(2);
    expect(res.interrupted).toBe(false);
  });

  it('stops on abort with finishReason "aborted", partial text and no error', async () => {
    const { fake, provider } = await setup();
    fake.script(reply('one two three four five six seven eight nine ten', { tokensPerSecond: 20 }));
    const controller = new AbortController();
    let text = '';
    const res = await provider.complete(ask({
      signal: controller.signal,
      onDelta: (d) => {
        text += d;
        if (text.split(' ').length >= 3) controller.abort();
      },
    }));
    expect(res.finishReason).toBe('aborted');
    expect(res.error).toBeUndefined();
    expect(res.interrupted).toBe(false);
    expect(res.text.startsWith('one two')).toBe(true);
    expect(res.text.length).toBeLessThan('one two three four five six seven eight nine ten'.length);
  });

  it('aborts during the backoff wait without another attempt', async () => {
    const { fake, provider } = await setup({ backoffBaseMs: 5_000, backoffMaxMs: 5_000 });
    fake.script(httpError(503), reply('never reached'));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const res = await provider.complete(ask({ signal: controller.signal }));
    expect(res.finishReason).toBe('aborted');
    expect(res.error).toBeUndefined();
    expect(res.latencyMs).toBeLessThan(2_000);
    expect(fake.requests).toHaveLength(1);
  });

  it('reports a connection failure as a retryable network error', async () => {
    const { fake, provider } = await setup({ maxAttempts: 2 });
    const url = fake.url;
    await fake.close();
    const dead = makeProvider({ baseURL: url, apiKey: 'k', timeoutMs: 1_000, maxAttempts: 2, backoffBaseMs: 5, backoffMaxMs: 5 });
    const res = await dead.complete(ask());
    expect(res.error).toMatchObject({ kind: 'network', retryable: true });
    expect(res.attempts).toBe(2);
    void provider;
  });
});

describe('provider URL as recorded', () => {
  it('keeps scheme, host, port and path; drops userinfo, query and fragment', () => {
    expect(sanitizeProviderUrl('https://user:p4ss@llm.example.org:8443/openai/v1?api-key=sk-secret&x=1#frag')).toBe('https://llm.example.org:8443/openai/v1');
    expect(sanitizeProviderUrl('http://127.0.0.1:4000/v1')).toBe('http://127.0.0.1:4000/v1');
    expect(sanitizeProviderUrl('https://api.openai.com/v1/')).toBe('https://api.openai.com/v1/');
    expect(sanitizeProviderUrl('http://:tok@host/v1')).toBe('http://host/v1');
    expect(sanitizeProviderUrl('not a url sk-secret')).not.toContain('sk-secret');
  });

  it('results and the instance never carry credentials from the configured base URL', async () => {
    fake = await startFakeOpenAI();
    const port = new URL(fake.url).port;
    const provider = new OpenAIProvider({ baseURL: `http://user:s3cret@127.0.0.1:${port}/v1?api-key=sk-s3cret#s3cret`, apiKey: 'k', timeoutMs: 1_000, maxAttempts: 1 });
    expect(provider.baseURL).toBe(fake.url);
    // fetch refuses URLs with credentials, so this attempt fails; the failed result is recorded all the same.
    const res = await provider.complete(ask());
    expect(res.providerUrl).toBe(fake.url);
    expect(JSON.stringify(res)).not.toContain('s3cret');
  });
});
