/**
 * Model calls for the judge and the annotator, through the reply cache.
 *
 * The cache key is sha256 of everything that determines the reply — purpose, provider name and URL,
 * model, messages, temperature, max tokens, seed — followed by the sample index; never the API key.
 * Completed replies are cached; transport failures (429, 5xx, timeouts, broken streams) and aborted
 * calls are not, so a rerun retries exactly those. Identical calls in flight share one request.
 * An attached image enters the key and the cached request as its media type, size and sha256 of its
 * bytes (so changed bytes miss the cache), never as base64.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../common/rubric';
import type { ModelReplyCache } from '../../lib/storage';
import type { ChatMessage, CompletionResult, LlmProvider, ToolChoice, ToolDefinition } from '../../lib/llm/provider';
import { auditableMessages } from './judgeImages';

export interface ProviderInfo {
  /** Provider name as recorded (e.g. "openai-compatible", "offline-judge-demo"). */
  name: string;
  /** Base URL; null for offline providers. */
  url: string | null;
}

export interface ModelCall {
  purpose: string;
  model: string;
  messages: ChatMessage[];
  temperature: number;
  maxTokens: number;
  seed: number;
  sampleIndex: number;
  timeoutMs?: number;
  /** Session whose data is in the prompt; linked to the cached reply so a withdrawal can purge it. Not part of the key. */
  sessionId?: string;
  /** Several sessions whose data is in the prompt (a group's document and room), each linked as `sessionId` is. */
  sessionIds?: readonly string[];
  /** Tools offered (teamwork); part of the key only when present, so keys of calls without tools are unchanged. */
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
}

export interface ModelCallOutcome {
  result: CompletionResult;
  key: string;
  /** Served from the cache file: no request was made. */
  cached: boolean;
  /** Joined an identical call already in flight: no request of its own. */
  merged: boolean;
}

export interface ModelClientStats {
  /** Requests actually sent to the provider (one per `complete` that missed cache and in-flight). */
  calls: number;
  cacheHits: number;
  merged: number;
  /** Tokens reported for new calls (cache hits cost nothing). */
  tokensSpent: number;
}

export function modelCallKey(provider: ProviderInfo, call: ModelCall): string {
  const determining = {
    purpose: call.purpose,
    provider: provider.name,
    providerUrl: provider.url,
    model: call.model,
    messages: auditableMessages(call.messages),
    temperature: call.temperature,
    maxTokens: call.maxTokens,
    seed: call.seed,
    ...(call.tools !== undefined || call.toolChoice !== undefined ? { tools: call.tools ?? null, toolChoice: call.toolChoice ?? null } : {}),
  };
  return `${createHash('sha256').update(canonicalJson(determining)).digest('hex')}:${call.sampleIndex}`;
}

/** A completed reply worth caching: no transport error, not aborted, not cut short. */
export function isCompletedReply(result: CompletionResult): boolean {
  return !result.error && !result.interrupted && result.finishReason !== 'aborted' && result.finishReason !== 'error';
}

export class CachedModelClient {
  readonly stats: ModelClientStats = { calls: 0, cacheHits: 0, merged: 0, tokensSpent: 0 };
  private readonly inFlight = new Map<string, Promise<CompletionResult>>();

  constructor(
    private readonly provider: LlmProvider,
    readonly providerInfo: ProviderInfo,
    private readonly cache: ModelReplyCache,
  ) {}

  async complete(call: ModelCall, signal?: AbortSignal): Promise<ModelCallOutcome> {
    const key = modelCallKey(this.providerInfo, call);
    const outcome = await this.lookupOrSend(key, call, signal);
    const linked = [...(call.sessionId !== undefined ? [call.sessionId] : []), ...(call.sessionIds ?? [])];
    if (outcome.cached || isCompletedReply(outcome.result)) for (const id of linked) await this.cache.linkSession(key, id);
    return outcome;
  }

  private async lookupOrSend(key: string, call: ModelCall, signal?: AbortSignal): Promise<ModelCallOutcome> {
    const hit = await this.cache.get(key);
    if (hit) {
      this.stats.cacheHits++;
      return { result: JSON.parse(hit.resultJson) as CompletionResult, key, cached: true, merged: false };
    }
    const pending = this.inFlight.get(key);
    if (pending) {
      this.stats.merged++;
      return { result: await pending, key, cached: false, merged: true };
    }
    const request = this.send(key, call, signal).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, request);
    return { result: await request, key, cached: false, merged: false };
  }

  private async send(key: string, call: ModelCall, signal?: AbortSignal): Promise<CompletionResult> {
    this.stats.calls++;
    const result = await this.provider.complete({
      model: call.model,
      messages: call.messages,
      temperature: call.temperature,
      maxTokens: call.maxTokens,
      seed: call.seed,
      ...(signal ? { signal } : {}),
      ...(call.timeoutMs !== undefined ? { timeoutMs: call.timeoutMs } : {}),
      ...(call.tools !== undefined ? { tools: call.tools } : {}),
      ...(call.toolChoice !== undefined ? { toolChoice: call.toolChoice } : {}),
    });
    this.stats.tokensSpent += result.usage?.totalTokens ?? 0;
    if (isCompletedReply(result)) {
      const { purpose, model, messages, temperature, maxTokens, seed, sampleIndex } = call;
      await this.cache.put({
        key,
        purpose,
        requestJson: JSON.stringify({ model, messages: auditableMessages(messages), temperature, maxTokens, seed, sampleIndex, provider: this.providerInfo }),
        resultJson: JSON.stringify(result),
        createdAt: Date.now(),
      });
    }
    return result;
  }
}
