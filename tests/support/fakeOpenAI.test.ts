import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { cutStream, hang, httpError, lastUserText, reply, startFakeOpenAI, type FakeOpenAI } from './fakeOpenAI';

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const client = (f: FakeOpenAI, timeout = 10_000): OpenAI => new OpenAI({ baseURL: f.url, apiKey: 'test-key', maxRetries: 0, timeout });
const messages = [{ role: 'user' as const, content: 'Say hi' }];

describe('fake OpenAI server', () => {
  it('answers non-streaming calls with usage, model and fingerprint, and records the request', async () => {
    fake = await startFakeOpenAI({ systemFingerprint: 'fp_test' });
    fake.reply('Hello world', { model: 'reported-model' });
    const res = await client(fake).chat.completions.create({ model: 'asked-model', messages });
    expect(res.choices[0]?.message.content).toBe('Hello world');
    expect(res.model).toBe('reported-model');
    expect(res.system_fingerprint).toBe('fp_test');
    expect(res.usage).toEqual({ prompt_tokens: 3 + 3 + 2, completion_tokens: 2, total_tokens: 10 });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.body.model).toBe('asked-model');
    expect(fake.requests[0]?.headers.authorization).toBe('Bearer test-key');
  });

  it('streams chunks in order, then finish reason and a usage chunk', async () => {
    fake = await startFakeOpenAI();
    fake.reply(['Hel', 'lo ', 'there'], { tokensPerSecond: 200 });
    const stream = await client(fake).chat.completions.create({ model: 'm', messages, stream: true, stream_options: { include_usage: true } });
    const deltas: string[] = [];
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      const c = chunk.choices[0];
      if (c?.delta.content) deltas.push(c.delta.content);
      if (c?.finish_reason) finish = c.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(deltas).toEqual(['Hel', 'lo ', 'there']);
    expect(finish).toBe('stop');
    expect(usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('paces streams by tokens per second', async () => {
    fake = await startFakeOpenAI();
    fake.reply('one two three four five six seven eight nine ten', { tokensPerSecond: 100 }); // 10 tokens → ~100 ms
    const t0 = Date.now();
    const stream = await client(fake).chat.completions.create({ model: 'm', messages, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('one two three four five six seven eight nine ten');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(90);
  });

  it('returns scripted HTTP errors with Retry-After, then falls back to the responder', async () => {
    fake = await startFakeOpenAI({ responder: (req) => `echo: ${lastUserText(req)}` });
    fake.script(httpError(429, { retryAfter: 2 }));
    const err = await client(fake).chat.completions.create({ model: 'm', messages }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
    expect((err as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('2');
    const ok = await client(fake).chat.completions.create({ model: 'm', messages });
    expect(ok.choices[0]?.message.content).toBe('echo: Say hi');
  });

  it('cuts a stream after k chunks without [DONE]', async () => {
    fake = await startFakeOpenAI();
    fake.script(cutStream(['a', 'b', 'c', 'd'], 2));
    const stream = await client(fake).chat.completions.create({ model: 'm', messages, stream: true });
    let text = '';
    const err = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().catch((e: unknown) => e);
    expect(text).toBe('ab');
    expect(err).toBeInstanceOf(Error);
  });

  it('hangs until the client times out, and close() ends hanging responses', async () => {
    fake = await startFakeOpenAI();
    fake.script(hang());
    const err = await client(fake, 150).chat.completions.create({ model: 'm', messages }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    fake.script(hang());
    const pending = client(fake).chat.completions.create({ model: 'm', messages }).catch((e: unknown) => e);
    // The request reaches the server when it does (later on a loaded box): wait for it, not for a fixed 50 ms.
    const open = fake;
    await expect.poll(() => open.openResponses, { timeout: 10_000 }).toBe(1);
    await fake.close();
    fake = undefined;
    expect(await pending).toBeInstanceOf(Error);
  });

  it('delays headers with delayMs and uses reply() helper defaults', async () => {
    fake = await startFakeOpenAI();
    fake.script(reply('late', { delayMs: 400 }));
    const err = await client(fake, 100).chat.completions.create({ model: 'm', messages }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });
});
