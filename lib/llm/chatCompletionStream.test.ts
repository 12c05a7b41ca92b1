import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { readChatCompletionStream } from './chatCompletionStream';
import { OpenAIProvider } from './openaiProvider';

/** A fetch Response whose body arrives in exactly these network reads. */
function responseOf(reads: Array<string | Uint8Array>): Response {
  const encoder = new TextEncoder();
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = reads.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(typeof next === 'string' ? encoder.encode(next) : next);
    },
    cancel() {
      cancelled = true;
    },
  });
  const response = new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  Object.defineProperty(response, 'wasCancelled', { get: () => cancelled });
  return response;
}

const chunk = (content: string, extra: Record<string, unknown> = {}): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }], ...extra })}\n\n`;

async function contents(response: Response): Promise<string[]> {
  const seen: string[] = [];
  await readChatCompletionStream(response, (c: ChatCompletionChunk) => {
    const text = c.choices[0]?.delta?.content;
    if (text) seen.push(text);
  });
  return seen;
}

describe('readChatCompletionStream', () => {
  it('parses events split at any byte, including inside a multi-byte character, and CRLF line ends', async () => {
    const whole = new TextEncoder().encode(chunk('naïve ') + chunk('café ☕').replaceAll('\n', '\r\n') + 'data: [DONE]\n\n');
    // Every split point once: the reader must give the same chunks whatever the network does.
    for (let cut = 1; cut < whole.length; cut++) {
      expect(await contents(responseOf([whole.slice(0, cut), whole.slice(cut)]))).toEqual(['naïve ', 'café ☕']);
    }
  });

  it('ignores comments, unknown fields and everything after [DONE]', async () => {
    const seen = await contents(responseOf([': keep-alive\n\n', 'foo: bar\n', chunk('a'), 'data: [DONE]\n\n', chunk('after')]));
    expect(seen).toEqual(['a']);
  });

  it('throws an APIError without a status for an error inside the stream, keeping what came before', async () => {
    const seen: string[] = [];
    const error = await readChatCompletionStream(
      responseOf([chunk('partial'), `data: ${JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } })}\n\n`, chunk('never')]),
      (c) => seen.push(c.choices[0]?.delta?.content ?? ''),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBeUndefined();
    expect((error as Error).message).toContain('overloaded');
    expect(seen).toEqual(['partial']);
  });

  it('throws for an `event: error` and for data that is not JSON', async () => {
    await expect(contents(responseOf([chunk('x'), 'event: error\ndata: {"message":"boom"}\n\n']))).rejects.toBeInstanceOf(OpenAI.APIError);
    await expect(contents(responseOf([chunk('x'), 'data: {not json\n\n']))).rejects.toThrow(/parse a stream event as JSON/);
  });

  it('cancels the body when the callback throws, and rethrows that error', async () => {
    const response = responseOf([chunk('a'), chunk('b'), chunk('c')]);
    const stop = new Error('stop here');
    const seen: string[] = [];
    await expect(
      readChatCompletionStream(response, (c) => {
        seen.push(c.choices[0]?.delta?.content ?? '');
        if (seen.length === 2) throw stop;
      }),
    ).rejects.toBe(stop);
    expect(seen).toEqual(['a', 'b']);
    expect((response as Response & { wasCancelled: boolean }).wasCancelled).toBe(true);
  });

  it('refuses an event that never ends instead of buffering it without bound', async () => {
    const endless = Array.from({ length: 80 }, () => 'x'.repeat(64 * 1024));
    await expect(contents(responseOf(['data: ', ...endless]))).rejects.toThrow(/buffer/i);
  });
});

describe('OpenAIProvider over a raw SSE server', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('ends a reply whose stream carries an error event as an interrupted, retryable stream error with its text', async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk('Hello '));
        res.end(`data: ${JSON.stringify({ error: { message: 'model crashed', type: 'server_error' } })}\n\n`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () => new Promise((resolve) => server.close(() => resolve()));
    const provider = new OpenAIProvider({ baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, apiKey: 'k', maxAttempts: 3 });
    const deltas: string[] = [];
    const result = await provider.complete({ model: 'm', messages: [{ role: 'user', content: 'hi' }], onDelta: (t) => deltas.push(t) });
    expect(deltas).toEqual(['Hello ']);
    expect(result).toMatchObject({ text: 'Hello ', interrupted: true, attempts: 1, finishReason: 'error' });
    expect(result.error).toMatchObject({ kind: 'stream', retryable: true });
    expect(result.error?.message).toContain('model crashed');
  });
});
