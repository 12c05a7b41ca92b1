/**
 * What the worker thread adds to OpenAIProvider's contract (which openaiProvider.test.ts checks on both
 * sides): calls of several providers at once routed to the right caller, an exception in onDelta stops
 * the stream, a worker that dies ends every call in flight as a retryable error and is replaced, and
 * close() leaves nothing hanging.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../../../tests/support/fakeOpenAI';
import type { CompletionRequest } from '../provider';
import { ProviderThread, ThreadedOpenAIProvider } from './providerThread';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function fakeServer(): Promise<FakeOpenAI> {
  const fake = await startFakeOpenAI();
  open.push(fake);
  return fake;
}
function newThread(): ProviderThread {
  const thread = new ProviderThread();
  open.push(thread);
  return thread;
}
const provider = (thread: ProviderThread, fake: FakeOpenAI) =>
  new ThreadedOpenAIProvider(thread, { baseURL: fake.url, apiKey: 'test-key', timeoutMs: 2_000, maxAttempts: 1 });
const ask = (extra: Partial<CompletionRequest> = {}): CompletionRequest => ({ model: 'gpt-test-1', messages: [{ role: 'user', content: 'Hi' }], ...extra });
const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ` ${tag}${i}`);

describe('ProviderThread', () => {
  it('streams concurrent calls to different endpoints, each fragment to its own caller, in order', async () => {
    const [a, b] = [await fakeServer(), await fakeServer()];
    a.reply(words(40, 'a'), { tokensPerSecond: 400 });
    b.reply(words(40, 'b'), { tokensPerSecond: 400 });
    const thread = newThread();
    const seen = { a: [] as string[], b: [] as string[] };
    const [ra, rb] = await Promise.all([
      provider(thread, a).complete(ask({ onDelta: (t) => seen.a.push(t) })),
      provider(thread, b).complete(ask({ onDelta: (t) => seen.b.push(t) })),
    ]);
    expect(seen.a).toEqual(words(40, 'a'));
    expect(seen.b).toEqual(words(40, 'b'));
    expect(ra).toMatchObject({ text: words(40, 'a').join(''), finishReason: 'stop', providerUrl: a.url });
    expect(rb).toMatchObject({ text: words(40, 'b').join(''), finishReason: 'stop', providerUrl: b.url });
    expect(thread.inFlight).toBe(0);
  });

  it('delivers a burst that arrives in one read as fragments in order', async () => {
    const fake = await fakeServer();
    fake.reply(words(300, 'w')); // no pacing: the whole reply arrives at once
    const seen: string[] = [];
    const result = await provider(newThread(), fake).complete(ask({ onDelta: (t) => seen.push(t) }));
    expect(seen.join('')).toBe(words(300, 'w').join(''));
    expect(result.text).toBe(seen.join(''));
  });

  it('stops the stream and rethrows when onDelta throws', async () => {
    const fake = await fakeServer();
    fake.reply(words(200, 'x'), { tokensPerSecond: 100 });
    const thread = newThread();
    let calls = 0;
    const call = provider(thread, fake).complete(
      ask({
        onDelta: () => {
          if (++calls === 3) throw new Error('client went away');
        },
      }),
    );
    await expect(call).rejects.toThrow('client went away');
    expect(thread.inFlight).toBe(0);
    // The abort reached the worker: the provider's stream is closed long before its 2 s would end.
    await expect.poll(() => fake.openResponses, { timeout: 1_500 }).toBe(0);
  });

  it('ends calls in flight as retryable errors with their text when the worker dies, and starts a new one', async () => {
    const fake = await fakeServer();
    fake.reply(words(100, 'y'), { tokensPerSecond: 50 });
    const thread = newThread();
    const seen: string[] = [];
    const call = provider(thread, fake).complete(ask({ onDelta: (t) => seen.push(t) }));
    await expect.poll(() => seen.length).toBeGreaterThanOrEqual(3);
    await thread.crashWorkerForTests();
    const result = await call;
    expect(result.error).toMatchObject({ kind: 'network', retryable: true });
    expect(result.error?.message).toMatch(/provider thread stopped/);
    expect(result.finishReason).toBe('error');
    expect(result.text).toBe(seen.join(''));
    expect(result.interrupted).toBe(true);
    expect(thread.inFlight).toBe(0);

    fake.reply('after the restart');
    const again = await provider(thread, fake).complete(ask({ onDelta: () => {} }));
    expect(again).toMatchObject({ text: 'after the restart', finishReason: 'stop' });
  });

  it('ends a call the caller aborts as aborted, not as an error', async () => {
    const fake = await fakeServer();
    fake.reply(words(100, 'z'), { tokensPerSecond: 50 });
    const thread = newThread();
    const controller = new AbortController();
    let n = 0;
    const call = provider(thread, fake).complete(ask({ signal: controller.signal, onDelta: () => void n++ }));
    await expect.poll(() => n).toBeGreaterThanOrEqual(2);
    controller.abort();
    const result = await call;
    expect(result.finishReason).toBe('aborted');
    expect(result.error).toBeUndefined();
    expect(result.interrupted).toBe(false);
  });

  it('close() ends calls in flight and refuses later ones, without hanging', async () => {
    const fake = await fakeServer();
    fake.reply(words(500, 'q'), { tokensPerSecond: 50 });
    const thread = new ProviderThread();
    let n = 0;
    const call = provider(thread, fake).complete(ask({ onDelta: () => void n++ }));
    await expect.poll(() => n).toBeGreaterThanOrEqual(1);
    await thread.close();
    expect(await call).toMatchObject({ finishReason: 'error', interrupted: true, error: { kind: 'network', message: 'the server is shutting down' } });
    const later = await provider(thread, fake).complete(ask());
    expect(later).toMatchObject({ finishReason: 'error', text: '', interrupted: false, error: { retryable: true } });
    expect(fake.requests).toHaveLength(1);
  });
});
