import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { preciseNowMs } from '../../research/simulation/clock';
import { markedToken } from '../../research/simulation/tokenMarkers';

/**
 * A minimal OpenAI-compatible chat-completions server for the load benchmark. Every reply streams
 * `tokensPerReply` tokens at `tokensPerSecond`, each token carrying its sequence number and the
 * precise time it was written to the socket (see tokenMarkers.ts), so a client can measure how long
 * each token took to reach it through the platform (or through the bare relay).
 *
 * Kept separate from tests/support/fakeOpenAI.ts (the scripted-fault server) because it needs one
 * thing that server does not offer: a send timestamp inside each token, taken at the moment of write.
 */
export interface TimedProviderOptions {
  tokensPerReply: number;
  tokensPerSecond: number;
  /**
   * Stamp every n-th token (default 1 = all). The others are the plain word " word", so a reply
   * costs the platform about as many o200k tokens as a real one (a stamp is ~12 tokens) while still
   * giving tokensPerReply/n timed samples.
   */
  markEvery?: number;
  port?: number;
  host?: string;
}

export interface RunningTimedProvider {
  url: string;
  /** Base URL for the `openai` client (…/v1). */
  baseURL: string;
  requests: () => number;
  close(): Promise<void>;
}

export async function startTimedProvider(options: TimedProviderOptions): Promise<RunningTimedProvider> {
  let requestCount = 0;
  const server: Server = createServer((req, res) => {
    if (req.method === 'POST' && req.url?.endsWith('/chat/completions')) {
      requestCount += 1;
      void handleCompletion(req, res, options);
      return;
    }
    if (req.method === 'GET' && req.url?.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'timed-fake', object: 'model' }] }));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'not found' } }));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    requests: () => requestCount,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Token i of a reply: a timestamp stamp on every `markEvery`-th token, else a one-token word. */
function tokenText(i: number, markEvery = 1): string {
  return i % markEvery === 0 ? markedToken(i, preciseNowMs()) : ' word';
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function handleCompletion(req: IncomingMessage, res: ServerResponse, options: TimedProviderOptions) {
  let body: { model?: string; stream?: boolean; max_tokens?: number; max_completion_tokens?: number };
  try {
    body = JSON.parse(await readBody(req));
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'invalid JSON' } }));
    return;
  }
  const model = body.model ?? 'timed-fake';
  const id = `chatcmpl-timed-${Math.random().toString(36).slice(2)}`;
  const created = Math.floor(Date.now() / 1000);
  const total = options.tokensPerReply;
  if (!body.stream) {
    const text = Array.from({ length: total }, (_, i) => tokenText(i, options.markEvery)).join('');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id, object: 'chat.completion', created, model,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: total, total_tokens: 10 + total },
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.write(chunk({ role: 'assistant', content: '' }, null));
  const intervalMs = 1000 / options.tokensPerSecond;
  const start = performance.now();
  let closed = false;
  res.on('close', () => (closed = true));
  for (let i = 0; i < total && !closed; i++) {
    // Schedule against absolute times so the rate does not drift under load.
    const due = start + (i + 1) * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (closed) break;
    res.write(chunk({ content: tokenText(i, options.markEvery) }, null));
  }
  if (closed) return;
  res.write(chunk({}, 'stop'));
  res.write(
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { prompt_tokens: 10, completion_tokens: total, total_tokens: 10 + total } })}\n\n`,
  );
  res.end('data: [DONE]\n\n');
}
