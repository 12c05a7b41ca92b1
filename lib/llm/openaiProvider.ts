/**
 * `LlmProvider` for any OpenAI-compatible endpoint, through the official `openai` client. A streamed
 * reply's body is read by chatCompletionStream.ts (cheaper per token than the client's own Stream).
 *
 * The client's own retries are off (`maxRetries: 0`): this module retries 429, 5xx, timeouts and
 * connection failures itself, with exponential backoff + jitter, honouring Retry-After, so that every
 * attempt is counted and timed. Other 4xx are never retried. A stream that breaks after the
 * participant has already seen text is NOT retried silently: the result comes back `interrupted` with
 * the partial text (a failure before any text may be retried).
 *
 * Timeouts: `timeoutMs` bounds the wait for the response headers, the wait for a whole non-streamed
 * body, and the silence between two stream chunks (a stalled stream times out too).
 */
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import type { CompletionRequest, CompletionResult, LlmProvider, ProviderError, TokenUsage } from './provider';
import { readChatCompletionStream } from './chatCompletionStream';
import { messageToolCalls, ToolCallAccumulator } from './toolCallDeltas';
import { backoffDelayMs, classifyError, sleepUnlessAborted } from './retryPolicy';
import { SilenceTimer } from './silenceTimer';

export interface OpenAIProviderOptions {
  /** e.g. "https://api.openai.com/v1" or a local server's ".../v1". Default: the openai package default. */
  baseURL?: string;
  apiKey: string;
  /** Per-attempt timeout (see module comment). Default 60 s; a request's `timeoutMs` overrides it. */
  timeoutMs?: number;
  /** Total attempts including the first. Default 3. */
  maxAttempts?: number;
  /** Backoff before retry n: base·2^(n−1) capped at max, with jitter. Defaults 500 ms / 8 s. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** A Retry-After longer than this is not waited for: the call fails with the error. Default 30 s. */
  maxRetryAfterMs?: number;
  /** Name recorded in results. Default "openai-compatible". */
  name?: string;
  /** Request field for `maxTokens`: newer OpenAI models want max_completion_tokens. Default max_tokens. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Sent as `reasoning_effort` when set (reasoning models). */
  reasoningEffort?: 'minimal' | 'low' | 'medium' | 'high';
  /** Randomness for backoff jitter (tests can pin it). */
  random?: () => number;
}

/** What one attempt produced. */
interface AttemptOutcome {
  text: string;
  usage: TokenUsage | null;
  model: string | null;
  systemFingerprint: string | null;
  finishReason: string | null;
  ttftMs: number | null;
  /** A 200 response had started (headers received) when the attempt ended. */
  responseStarted: boolean;
  aborted: boolean;
  error?: ProviderError;
  retryAfterMs?: number;
  toolCalls?: CompletionResult['toolCalls'];
  refusal?: string;
}

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** The name and the sanitised endpoint a provider built from these options records with every result. */
export function providerIdentity(options: Pick<OpenAIProviderOptions, 'name' | 'baseURL'>): { name: string; providerUrl: string } {
  return { name: options.name ?? 'openai-compatible', providerUrl: sanitizeProviderUrl(options.baseURL ?? DEFAULT_BASE_URL) };
}

/**
 * The endpoint as it may be recorded (messages, events, judge audit, exports): scheme, host, port and
 * path only. Userinfo (`user:pass@`), query (`?api-key=…`) and fragment can carry credentials, so they
 * are dropped. An unparseable URL is recorded as a placeholder, never verbatim.
 */
export function sanitizeProviderUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '[unparseable provider URL]';
  }
  return `${url.protocol}//${url.host}${url.pathname}`;
}

export class OpenAIProvider implements LlmProvider {
  readonly name: string;
  /** The sanitised endpoint (see sanitizeProviderUrl): safe to store and show; never holds credentials. */
  readonly baseURL: string;
  private readonly client: OpenAI;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly backoff: { baseMs: number; maxMs: number; random?: () => number };
  private readonly maxRetryAfterMs: number;
  private readonly maxTokensField: 'max_tokens' | 'max_completion_tokens';
  private readonly reasoningEffort: OpenAIProviderOptions['reasoningEffort'];

  constructor(options: OpenAIProviderOptions) {
    // The client gets the URL as configured; only the sanitised form is kept on the instance and recorded.
    const identity = providerIdentity(options);
    this.name = identity.name;
    this.baseURL = identity.providerUrl;
    this.timeoutMs = Math.max(1, Math.round(options.timeoutMs ?? 60_000));
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.backoff = { baseMs: options.backoffBaseMs ?? 500, maxMs: options.backoffMaxMs ?? 8_000, ...(options.random ? { random: options.random } : {}) };
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
    this.maxTokensField = options.maxTokensField ?? 'max_tokens';
    this.reasoningEffort = options.reasoningEffort;
    this.client = new OpenAI({ baseURL: options.baseURL ?? DEFAULT_BASE_URL, apiKey: options.apiKey, maxRetries: 0, timeout: this.timeoutMs });
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const startedAt = performance.now();
    const elapsed = (): number => Math.round(performance.now() - startedAt);
    const result = (o: AttemptOutcome, attempts: number): CompletionResult => ({
      text: o.text,
      usage: o.usage,
      provider: this.name,
      model: o.model ?? request.model,
      providerUrl: this.baseURL,
      systemFingerprint: o.systemFingerprint,
      finishReason: o.aborted ? 'aborted' : o.error ? 'error' : (o.finishReason ?? 'stop'),
      ttftMs: o.ttftMs,
      latencyMs: elapsed(),
      attempts,
      // A user abort is not a broken stream; a stream that started and then failed is.
      interrupted: !o.aborted && o.error !== undefined && o.responseStarted && request.onDelta !== undefined,
      ...(o.error && !o.aborted ? { error: o.error } : {}),
      ...(o.toolCalls ? { toolCalls: o.toolCalls } : {}),
      ...(o.refusal ? { refusal: o.refusal } : {}),
    });

    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(request, startedAt);
      if (outcome.aborted || !outcome.error) return result(outcome, attempt);

      const textDelivered = outcome.text.length > 0;
      const tooLongToWait = outcome.retryAfterMs !== undefined && outcome.retryAfterMs > this.maxRetryAfterMs;
      if (attempt >= this.maxAttempts || !outcome.error.retryable || textDelivered || tooLongToWait) {
        return result(outcome, attempt);
      }
      const wait = outcome.retryAfterMs ?? backoffDelayMs(attempt, this.backoff);
      if (await sleepUnlessAborted(wait, request.signal)) {
        return result({ ...outcome, aborted: true }, attempt);
      }
    }
  }

  /** One HTTP call. Never throws for provider trouble; rethrows only errors raised by `onDelta`. */
  private async attempt(request: CompletionRequest, startedAt: number): Promise<AttemptOutcome> {
    // The openai client rejects non-integer timeouts, so round here.
    const timeoutMs = Math.max(1, Math.round(request.timeoutMs ?? this.timeoutMs));
    const controller = new AbortController();
    let timedOut = false;
    let silence: SilenceTimer | undefined;
    // Started with the request; the response's headers and every chunk count as a sign of life.
    const markAlive = (): void => {
      if (silence) silence.touch();
      else
        silence = new SilenceTimer(timeoutMs, () => {
          timedOut = true;
          controller.abort();
        });
    };
    const onUserAbort = (): void => controller.abort();
    request.signal?.addEventListener('abort', onUserAbort, { once: true });

    const out: AttemptOutcome = {
      text: '', usage: null, model: null, systemFingerprint: null, finishReason: null, ttftMs: null, responseStarted: false, aborted: false,
    };
    let callbackError: { error: unknown } | undefined;
    const params: ChatCompletionCreateParamsBase = {
      model: request.model,
      messages: request.messages,
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.seed !== undefined ? { seed: request.seed } : {}),
      ...(request.maxTokens !== undefined ? { [this.maxTokensField]: request.maxTokens } : {}),
      ...(request.tools ? { tools: request.tools } : {}),
      ...(request.toolChoice ? { tool_choice: request.toolChoice } : {}),
      ...(this.reasoningEffort ? { reasoning_effort: this.reasoningEffort } : {}),
    };
    const requestOptions = { signal: controller.signal, timeout: timeoutMs };

    try {
      if (request.signal?.aborted) {
        out.aborted = true;
        return out;
      }
      markAlive();
      if (request.onDelta) {
        const onDelta = request.onDelta;
        const response = await this.client.chat.completions
          .create({ ...params, stream: true, stream_options: { include_usage: true } }, requestOptions)
          .asResponse();
        out.responseStarted = true;
        markAlive();
        const tools = new ToolCallAccumulator();
        await readChatCompletionStream(response, (chunk) => {
          markAlive();
          if (chunk.model) out.model = chunk.model;
          if (chunk.system_fingerprint) out.systemFingerprint = chunk.system_fingerprint;
          if (chunk.usage) out.usage = toUsage(chunk.usage);
          const choice = chunk.choices?.[0];
          tools.add(choice?.delta);
          const delta = choice?.delta?.content;
          if (delta) {
            if (out.ttftMs === null) out.ttftMs = Math.round(performance.now() - startedAt);
            out.text += delta;
            try {
              onDelta(delta);
            } catch (error) {
              callbackError = { error };
              controller.abort();
              throw error;
            }
          }
          if (choice?.finish_reason) out.finishReason = choice.finish_reason;
        });
        out.toolCalls = tools.toolCalls();
        if (tools.refusal) out.refusal = tools.refusal;
        // Why the stream ended, when it ended without an error.
        if (callbackError) throw callbackError.error;
        if (request.signal?.aborted) out.aborted = true;
        else if (out.finishReason === null) {
          const reason = timedOut ? `no data for ${timeoutMs} ms` : 'stream ended without a finish reason';
          Object.assign(out, classifyError(new Error(reason), { timedOut, responseStarted: true, streaming: true }));
        }
      } else {
        const response = await this.client.chat.completions.create({ ...params, stream: false }, requestOptions);
        out.responseStarted = true;
        out.text = response.choices[0]?.message?.content ?? '';
        out.finishReason = response.choices[0]?.finish_reason ?? null;
        out.model = response.model || null;
        out.systemFingerprint = response.system_fingerprint ?? null;
        out.usage = response.usage ? toUsage(response.usage) : null;
        out.toolCalls = messageToolCalls(response.choices[0]?.message);
        if (response.choices[0]?.message?.refusal) out.refusal = response.choices[0].message.refusal;
      }
    } catch (err) {
      if (callbackError) throw callbackError.error;
      if (request.signal?.aborted) out.aborted = true;
      else if (out.finishReason !== null && request.onDelta) {
        // The reply was complete (finish reason seen); only the trailing usage chunk or [DONE] was lost.
      } else Object.assign(out, classifyError(err, { timedOut, responseStarted: out.responseStarted, streaming: request.onDelta !== undefined }));
    } finally {
      silence?.clear();
      request.signal?.removeEventListener('abort', onUserAbort);
    }
    return out;
  }
}

function toUsage(u: OpenAI.CompletionUsage): TokenUsage {
  return { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens, totalTokens: u.total_tokens };
}

export function createOpenAIProvider(options: OpenAIProviderOptions): OpenAIProvider {
  return new OpenAIProvider(options);
}
