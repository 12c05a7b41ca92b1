/**
 * A local OpenAI-compatible HTTP server for tests and benchmarks, so that the real `openai` client runs.
 *
 *   import { startFakeOpenAI, reply, httpError, hang, cutStream, stallStream } from '../tests/support/fakeOpenAI';
 *
 *   const fake = await startFakeOpenAI();          // listens on 127.0.0.1, random port
 *   new OpenAI({ baseURL: fake.url, apiKey: 'test', maxRetries: 0 });   // fake.url = http://127.0.0.1:PORT/v1
 *   fake.script(httpError(429, { retryAfter: 1 }), reply('Hello there'));  // queue: one behaviour per call
 *   fake.reply('Hi', { tokensPerSecond: 50 });      // shortcut for fake.script(reply(...))
 *   fake.setResponder((req) => reply(`echo: ${lastUserText(req)}`));  // used when the queue is empty
 *   fake.requests[0].body.messages                  // every request, recorded (body, headers, path)
 *   await fake.close();                             // ends open streams and stops the server
 *
 * Endpoint: POST /v1/chat/completions (also GET /v1/models). With `stream: true` it answers with SSE
 * (`data: {chunk}` lines, first delta carries the role, each later one `choices[0].delta.content`, a
 * final chunk with `finish_reason`, a usage chunk with `choices: []` when `stream_options.include_usage`
 * is set, then `data: [DONE]`); otherwise one JSON `chat.completion` with `usage`, `model`,
 * `system_fingerprint`.
 *
 * Behaviours (a string anywhere a behaviour is expected means `reply(thatString)`):
 *  - reply(text | chunks[], opts)  text split into o200k tokens (or the exact chunks given), grouped into
 *      `opts.chunks` pieces if set, streamed at `opts.tokensPerSecond` (0/undefined = instant).
 *      opts: model, systemFingerprint, finishReason ('stop'), usage (override), delayMs (before headers),
 *      toolCalls (OpenAI tool calls: streamed as `delta.tool_calls` fragments after the text, each call's
 *      arguments split in two fragments so readers must join them; finish reason 'tool_calls'), refusal.
 *  - toolCall(name, args, id?)  one tool call for `toolCalls` (args: an object, or raw text for malformed JSON).
 *  - httpError(status, { message, body, retryAfter })  JSON error body (OpenAI shape), optional Retry-After.
 *  - hang()                 never answers (the client's timeout fires); ended by close().
 *  - cutStream(text, k)     streams k content chunks, then destroys the socket without finish/[DONE].
 *  - stallStream(text, k)   streams k content chunks, then goes silent with the socket open.
 * Non-streaming requests honour the same behaviours (a cut sends half a JSON body then destroys).
 *
 * Usage reported by default: prompt = Σ(o200k tokens of each message content + 3) + 3 (OpenAI's chat
 * framing; for multi-part content, its text parts — images count nothing), completion = o200k tokens of
 * the full reply text. Timers only, no busy loops. Request bodies are recorded as sent, image parts included.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeGenerator, encode } from 'gpt-tokenizer/encoding/o200k_base';

export interface ReplyOptions {
  /** Split the reply into this many chunks (default: one chunk per token). */
  chunks?: number;
  /** Streaming pace; 0 or undefined streams instantly. Non-streaming replies wait the same total time. */
  tokensPerSecond?: number;
  /** Reported model (default: the server's `model` option, else the requested model). */
  model?: string;
  systemFingerprint?: string;
  finishReason?: string;
  /** Override reported usage (fields not given are computed). */
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  /** Wait this long before sending response headers (use > client timeout to simulate a timeout). */
  delayMs?: number;
  /** Tool calls the reply makes (see toolCall()); the finish reason defaults to 'tool_calls'. */
  toolCalls?: FakeToolCall[];
  /** A refusal message (OpenAI `refusal`), sent instead of / beside the text. */
  refusal?: string;
}

export interface FakeToolCall {
  id: string;
  name: string;
  /** The arguments text exactly as sent (may be malformed JSON on purpose). */
  arguments: string;
}

let toolCallCounter = 0;
/** A tool call for ReplyOptions.toolCalls; `args` as an object is sent as JSON, as a string verbatim. */
export function toolCall(name: string, args: Record<string, unknown> | string, id?: string): FakeToolCall {
  return { id: id ?? `call_fake${++toolCallCounter}`, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}

export type FakeBehaviour =
  | ({ type: 'reply'; text: string | string[]; cutAfterChunks?: number; stallAfterChunks?: number } & ReplyOptions)
  | { type: 'error'; status: number; message?: string; body?: unknown; retryAfter?: number | string }
  | { type: 'hang' };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (null when the body was empty or not JSON). */
  body: any;
  receivedAt: number;
}

export type FakeResponder = (request: RecordedRequest, index: number) => FakeBehaviour | string | Promise<FakeBehaviour | string>;

export interface FakeOpenAIOptions {
  /** Behaviour when the script queue is empty. Default: reply('This is a reply from the fake model.'). */
  responder?: FakeResponder;
  /** Defaults applied to every reply unless the behaviour sets them. */
  tokensPerSecond?: number;
  chunks?: number;
  model?: string;
  systemFingerprint?: string;
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. */
  apiKey?: string;
}

export interface FakeOpenAI {
  /** Base URL including /v1, e.g. http://127.0.0.1:41234/v1 */
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** Queue behaviours, consumed one per chat-completion call, before the responder is asked. */
  script(...behaviours: Array<FakeBehaviour | string>): void;
  reply(text: string | string[], options?: ReplyOptions): void;
  setResponder(responder: FakeResponder): void;
  /** Behaviours still queued. */
  readonly pending: number;
  /** Responses currently in progress (streaming, delayed or hanging). */
  readonly openResponses: number;
  /** Clear recorded requests and the queue. */
  reset(): void;
  close(): Promise<void>;
}

export function reply(text: string | string[], options: ReplyOptions = {}): FakeBehaviour {
  return { type: 'reply', text, ...options };
}
export function httpError(status: number, options: { message?: string; body?: unknown; retryAfter?: number | string } = {}): FakeBehaviour {
  return { type: 'error', status, ...options };
}
export function hang(): FakeBehaviour {
  return { type: 'hang' };
}
export function cutStream(text: string | string[], afterChunks: number, options: ReplyOptions = {}): FakeBehaviour {
  return { type: 'reply', text, cutAfterChunks: afterChunks, ...options };
}
export function stallStream(text: string | string[], afterChunks: number, options: ReplyOptions = {}): FakeBehaviour {
  return { type: 'reply', text, stallAfterChunks: afterChunks, ...options };
}

/** Text of a message's content: the string, or the text parts of a multi-part (e.g. image) message joined by blank lines. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.flatMap((p: { type?: unknown; text?: unknown }) => (p?.type === 'text' && typeof p.text === 'string' ? [p.text] : [])).join('\n\n');
}

/** Text of the last user message in a recorded request (handy in responders). */
export function lastUserText(request: RecordedRequest): string {
  const messages: Array<{ role?: string; content?: unknown }> = request.body?.messages ?? [];
  const last = [...messages].reverse().find((m) => m.role === 'user');
  return contentText(last?.content);
}

const countTokens = (text: string): number => encode(text, { disallowedSpecial: new Set() }).length;

/** Split text into pieces of roughly one token each (multi-byte characters are kept whole). */
function tokenPieces(text: string): string[] {
  return [...decodeGenerator(encode(text, { disallowedSpecial: new Set() }))];
}

/** Chunks of the reply with the number of tokens each carries (for pacing). */
function planChunks(text: string | string[], chunkCount: number | undefined): Array<{ text: string; tokens: number }> {
  if (Array.isArray(text)) return text.map((t) => ({ text: t, tokens: Math.max(1, countTokens(t)) }));
  const pieces = tokenPieces(text);
  if (!chunkCount || chunkCount >= pieces.length) return pieces.map((t) => ({ text: t, tokens: 1 }));
  const out: Array<{ text: string; tokens: number }> = [];
  const per = pieces.length / chunkCount;
  for (let i = 0; i < chunkCount; i++) {
    const group = pieces.slice(Math.round(i * per), Math.round((i + 1) * per));
    out.push({ text: group.join(''), tokens: group.length });
  }
  return out;
}

function promptTokens(body: any): number {
  const messages: Array<{ content?: unknown }> = Array.isArray(body?.messages) ? body.messages : [];
  let total = 3;
  for (const m of messages) total += 3 + countTokens(contentText(m.content));
  return total;
}

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  const queue: Array<FakeBehaviour | string> = [];
  let responder: FakeResponder = options.responder ?? (() => reply('This is a reply from the fake model.'));
  let callIndex = 0;
  let nextId = 1;
  let closing = false;
  /** Cleanup functions of in-progress responses; close() calls them all. */
  const open = new Set<() => void>();

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      void handle(req, res, Buffer.concat(parts).toString('utf8')).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: { message: String(err), type: 'fake_server_error' } });
        else res.destroy();
      });
    });
  });
  server.keepAliveTimeout = 1_000;

  function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const data = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers });
    res.end(data);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let body: any = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      /* recorded as null; answered below */
    }
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body, receivedAt: Date.now() };
    requests.push(recorded);

    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return sendJson(res, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } });
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, { object: 'list', data: [{ id: options.model ?? 'fake-model', object: 'model', owned_by: 'fake' }] });
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return sendJson(res, 404, { error: { message: `No route ${req.method} ${path}`, type: 'invalid_request_error' } });
    }
    if (body === null || !Array.isArray(body.messages)) {
      return sendJson(res, 400, { error: { message: 'Body must be JSON with a messages array.', type: 'invalid_request_error' } });
    }

    const index = callIndex++;
    const scripted = queue.shift();
    let behaviour = scripted ?? (await responder(recorded, index));
    if (typeof behaviour === 'string') behaviour = reply(behaviour);
    await perform(behaviour, body, res);
  }

  /** Run a behaviour; resolves when the response is finished, destroyed or abandoned by the client. */
  function perform(b: FakeBehaviour, body: any, res: http.ServerResponse): Promise<void> {
    if (b.type === 'error') {
      const headers: Record<string, string> = b.retryAfter !== undefined ? { 'retry-after': String(b.retryAfter) } : {};
      const errBody = b.body ?? { error: { message: b.message ?? `Fake error ${b.status}`, type: b.status === 429 ? 'rate_limit_error' : 'server_error', code: null } };
      sendJson(res, b.status, errBody, headers);
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let done = false;
      const finish = (): void => {
        done = true;
        if (timer) clearTimeout(timer);
        open.delete(stop);
        resolve();
      };
      const stop = (): void => {
        res.destroy();
        finish();
      };
      open.add(stop);
      res.on('close', finish); // client went away, or we ended/destroyed it
      if (closing) return stop();
      if (b.type === 'hang') return; // stays open until the client gives up or close()

      const model: string = b.model ?? options.model ?? String(body.model ?? 'fake-model');
      const fingerprint = b.systemFingerprint ?? options.systemFingerprint ?? 'fp_fake';
      const plan = planChunks(b.text, b.chunks ?? options.chunks);
      const fullText = plan.map((c) => c.text).join('');
      const usage = {
        prompt_tokens: b.usage?.prompt_tokens ?? promptTokens(body),
        completion_tokens: b.usage?.completion_tokens ?? countTokens(fullText),
        total_tokens: 0,
      };
      usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
      const tps = b.tokensPerSecond ?? options.tokensPerSecond ?? 0;
      const msFor = (tokens: number): number => (tps > 0 ? (tokens * 1000) / tps : 0);
      const id = `chatcmpl-fake${nextId++}`;
      const created = Math.floor(Date.now() / 1000);
      const finishReason = b.finishReason ?? (b.toolCalls?.length ? 'tool_calls' : 'stop');
      const wireToolCalls = b.toolCalls?.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
      const later = (ms: number, fn: () => void): void => {
        timer = setTimeout(fn, ms);
      };

      const start = (): void => {
        if (body.stream === true) streamChunks();
        else answerJson();
      };

      const answerJson = (): void => {
        const total = plan.reduce((n, c) => n + c.tokens, 0);
        later(msFor(total), () => {
          const json = JSON.stringify({
            id, object: 'chat.completion', created, model, system_fingerprint: fingerprint,
            choices: [{
              index: 0,
              message: { role: 'assistant', content: fullText, refusal: b.refusal ?? null, ...(wireToolCalls ? { tool_calls: wireToolCalls } : {}) },
              logprobs: null,
              finish_reason: finishReason,
            }],
            usage,
          });
          if (b.cutAfterChunks !== undefined || b.stallAfterChunks !== undefined) {
            res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
            res.write(json.slice(0, Math.floor(json.length / 2)));
            if (b.cutAfterChunks !== undefined) stop();
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
          res.end(json);
        });
      };

      const streamChunks = (): void => {
        const includeUsage = body.stream_options?.include_usage === true;
        const base = { id, object: 'chat.completion.chunk', created, model, system_fingerprint: fingerprint };
        const send = (choices: unknown[], extra: Record<string, unknown> = {}): void => {
          res.write(`data: ${JSON.stringify({ ...base, choices, ...(includeUsage ? { usage: null } : {}), ...extra })}\n\n`);
        };
        const template = JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: '\u0000' }, logprobs: null, finish_reason: null }], ...(includeUsage ? { usage: null } : {}) });
        const [contentHead, contentTail] = template.split('"\\u0000"').map((part, k) => (k === 0 ? `data: ${part}` : `${part}\n\n`)) as [string, string];
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        send([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }]);
        let i = 0;
        const next = (): void => {
          if (done) return;
          if (b.cutAfterChunks !== undefined && i >= b.cutAfterChunks) return stop();
          if (b.stallAfterChunks !== undefined && i >= b.stallAfterChunks) return; // silent, socket open
          const chunk = plan[i];
          if (chunk === undefined) {
            if (b.refusal) send([{ index: 0, delta: { refusal: b.refusal }, logprobs: null, finish_reason: null }]);
            (b.toolCalls ?? []).forEach((c, index) => {
              const cut = Math.floor(c.arguments.length / 2);
              const head = { index, id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments.slice(0, cut) } };
              send([{ index: 0, delta: { tool_calls: [head] }, logprobs: null, finish_reason: null }]);
              send([{ index: 0, delta: { tool_calls: [{ index, function: { arguments: c.arguments.slice(cut) } }] }, logprobs: null, finish_reason: null }]);
            });
            send([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }]);
            if (includeUsage) send([], { usage });
            res.end('data: [DONE]\n\n');
            return;
          }
          // Content chunks are the hot path under load: splice the text into a pre-serialised template.
          res.write(contentHead + JSON.stringify(chunk.text) + contentTail);
          i++;
          const wait = msFor(plan[i]?.tokens ?? 0);
          if (wait > 0) later(wait, next);
          else setImmediate(next); // instant, but lets the socket flush and close() interrupt
        };
        const first = msFor(plan[0]?.tokens ?? 0);
        if (first > 0) later(first, next);
        else next();
      };

      if (b.delayMs && b.delayMs > 0) later(b.delayMs, start);
      else start();
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    script: (...behaviours) => void queue.push(...behaviours),
    reply: (text, replyOptions) => void queue.push(reply(text, replyOptions)),
    setResponder: (r) => {
      responder = r;
    },
    get pending() {
      return queue.length;
    },
    get openResponses() {
      return open.size;
    },
    reset: () => {
      requests.length = 0;
      queue.length = 0;
    },
    close: async () => {
      closing = true;
      for (const stop of [...open]) stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
