/**
 * What the worker thread adds to OpenAIProvider's contract (which openaiProvider.test.ts checks on both
 * sides): calls of several providers at once routed to the right caller, an exception in onDelta stops
 * the stream, a worker that dies ends every call in flight as a retryable error and is replaced, and
 * close() leaves nothing hanging.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
    fake.reply(words(2000, 'x'), { tokensPerSecond: 100 }); // 20 s unless the abort reaches the worker
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
    await expect.poll(() => fake.openResponses, { timeout: 5_000 }).toBe(0);
  });

  it('ends calls in flight as retryable errors with their text when the worker dies, and starts a new one', async () => {
    const fake = await fakeServer();
    fake.reply(words(100, 'y'), { tokensPerSecond: 50 });
    const thread = newThread();
    const seen: string[] = [];
    const call = provider(thread, fake).complete(ask({ onDelta: (t) => seen.push(t) }));
    await expect.poll(() => seen.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
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
    fake.reply(words(500, 'z'), { tokensPerSecond: 50 });
    const thread = newThread();
    const controller = new AbortController();
    let n = 0;
    const call = provider(thread, fake).complete(ask({ signal: controller.signal, onDelta: () => void n++ }));
    await expect.poll(() => n, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
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
    await expect.poll(() => n, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    await thread.close();
    expect(await call).toMatchObject({ finishReason: 'error', interrupted: true, error: { kind: 'network', message: 'the server is shutting down' } });
    const later = await provider(thread, fake).complete(ask());
    expect(later).toMatchObject({ finishReason: 'error', text: '', interrupted: false, error: { retryable: true } });
    expect(fake.requests).toHaveLength(1);
  });

  it('warmUp() loads the worker before the first call, and an idle worker lets the process exit', async () => {
    const fake = await fakeServer();
    fake.reply(words(20, 'v'), { tokensPerSecond: 200 });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-provider-thread-'));
    const script = path.join(dir, 'run.mts');
    const module = fileURLToPath(new URL('./providerThread.ts', import.meta.url));
    // A process that warms the thread up, makes one streamed call, then neither closes the thread nor exits.
    fs.writeFileSync(
      script,
      `
import { ProviderThread, ThreadedOpenAIProvider } from ${JSON.stringify(module)};
const thread = new ProviderThread();
await thread.warmUp();
const provider = new ThreadedOpenAIProvider(thread, { baseURL: ${JSON.stringify(fake.url)}, apiKey: 'k', maxAttempts: 1 });
let deltas = 0;
const result = await provider.complete({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], onDelta: () => void deltas++ });
console.log(JSON.stringify({ finishReason: result.finishReason, deltas, inFlight: thread.inFlight }));
`,
    );
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, ['--import', 'tsx', script], { timeout: 30_000 }, (_err, stdout, stderr) =>
        resolve({ code: child.exitCode, stdout, stderr }),
      );
    });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0); // exited by itself: the idle worker is unref'd (the 30 s timeout would kill it otherwise)
    expect(JSON.parse(run.stdout)).toEqual({ finishReason: 'stop', deltas: 20, inFlight: 0 });
  });
});
