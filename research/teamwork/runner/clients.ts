/**
 * Model names → clients through the reply cache. The offline reference models (offlineModels.ts) are
 * chosen by name; a name listed in the models file (endpoints/modelsFile.ts) goes to its own endpoint
 * with its own key and parameters; any other name goes to the OpenAI-compatible endpoint of
 * OPENAI_BASE_URL with OPENAI_API_KEY (the provider retries 429/5xx/timeouts with backoff itself, then
 * returns the error).
 */
import type { TeamworkTask } from '../../../common/teamworkTask';
import { CachedModelClient, type ModelClientStats } from '../../judge/cachedModelClient';
import type { ModelReplyCache } from '../../../lib/storage';
import { OpenAIProvider, providerIdentity } from '../../../lib/llm/openaiProvider';
import type { CompletionRequest, CompletionResult, LlmProvider } from '../../../lib/llm/provider';
import type { ModelEndpoint, ModelsFile } from '../endpoints/modelsFile';
import { OFFLINE_JUDGE, OFFLINE_PARTNER, OFFLINE_SUBJECTS, OfflineJudgeModel, OfflinePartnerModel, OfflineSubjectModel, type OfflineSubject } from '../models/offlineModels';
import type { SeatClient } from './context';

export class ModelSetupError extends Error {}

export interface ProviderSettings {
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Attempts per call including the first (provider backoff between them). */
  maxAttempts?: number;
  backoffBaseMs?: number;
  /** Endpoints per model name (`--models`); names not in it use OPENAI_BASE_URL / OPENAI_API_KEY. */
  models?: ModelsFile;
}

/** Drops the request parameters an endpoint does not take (models file: takes_temperature, max_tokens_param: none). */
class ParameterPolicy implements LlmProvider {
  readonly name: string;
  constructor(readonly inner: OpenAIProvider, private readonly endpoint: ModelEndpoint) {
    this.name = inner.name;
  }
  complete(request: CompletionRequest): Promise<CompletionResult> {
    const { temperature, maxTokens, ...rest } = request;
    return this.inner.complete({
      ...rest,
      ...(this.endpoint.takes_temperature && temperature !== undefined ? { temperature } : {}),
      ...(this.endpoint.max_tokens_param !== 'none' && maxTokens !== undefined ? { maxTokens } : {}),
    });
  }
}

/** The endpoint a model name goes to, without credentials (for the run's settings and the report); null offline. */
export function endpointOf(model: string, settings: Pick<ProviderSettings, 'env' | 'models'>): string | null {
  if (ModelClients.isOffline(model)) return null;
  const endpoint = settings.models?.models[model];
  const baseURL = endpoint?.base_url ?? settings.env.OPENAI_BASE_URL;
  return providerIdentity(baseURL ? { baseURL } : {}).providerUrl;
}

export class ModelClients {
  private readonly clients = new Map<string, CachedModelClient>();
  private openai: OpenAIProvider | undefined;

  constructor(
    private readonly tasks: readonly TeamworkTask[],
    private readonly cache: ModelReplyCache,
    private readonly settings: ProviderSettings,
  ) {}

  /** Whether `name` is answered offline. */
  static isOffline(name: string): boolean {
    return (OFFLINE_SUBJECTS as readonly string[]).includes(name) || name === OFFLINE_JUDGE || name === OFFLINE_PARTNER;
  }

  seat(model: string): SeatClient {
    let client = this.clients.get(model);
    const endpoint = this.settings.models?.models[model];
    if (!client) {
      const provider = this.providerFor(model);
      const inner = provider instanceof ParameterPolicy ? provider.inner : provider;
      // What the endpoint is sent beyond the request (reasoning effort, dropped parameters) changes replies: it enters the cache key.
      const policy = endpoint ? `|reasoning_effort=${endpoint.reasoning_effort ?? '-'}|temperature=${endpoint.takes_temperature}|max=${endpoint.max_tokens_param}` : '';
      const info = inner instanceof OpenAIProvider ? { name: `${inner.name}${policy}`, url: inner.baseURL } : { name: provider.name, url: null };
      client = new CachedModelClient(provider, info, this.cache);
      this.clients.set(model, client);
    }
    return { client, model: endpoint?.model ?? model };
  }

  /** Requests, cache hits and tokens over every client so far. */
  stats(): ModelClientStats {
    const total: ModelClientStats = { calls: 0, cacheHits: 0, merged: 0, tokensSpent: 0 };
    for (const c of this.clients.values()) {
      total.calls += c.stats.calls;
      total.cacheHits += c.stats.cacheHits;
      total.merged += c.stats.merged;
      total.tokensSpent += c.stats.tokensSpent;
    }
    return total;
  }

  private common() {
    return {
      ...(this.settings.timeoutMs !== undefined ? { timeoutMs: this.settings.timeoutMs } : {}),
      maxAttempts: this.settings.maxAttempts ?? 4,
      ...(this.settings.backoffBaseMs !== undefined ? { backoffBaseMs: this.settings.backoffBaseMs } : {}),
    };
  }

  private providerFor(model: string): LlmProvider {
    if ((OFFLINE_SUBJECTS as readonly string[]).includes(model)) return new OfflineSubjectModel(model as OfflineSubject, this.tasks);
    if (model === OFFLINE_JUDGE) return new OfflineJudgeModel(this.tasks);
    if (model === OFFLINE_PARTNER) return new OfflinePartnerModel();
    const endpoint = this.settings.models?.models[model];
    if (endpoint) {
      const apiKey = endpoint.api_key_env ? this.settings.env[endpoint.api_key_env]?.trim() : 'no-key';
      if (!apiKey) throw new ModelSetupError(`model "${model}" needs ${endpoint.api_key_env} (models file ${this.settings.models!.path}: api_key_env)`);
      const provider = new OpenAIProvider({
        apiKey, baseURL: endpoint.base_url, ...this.common(),
        ...(endpoint.max_tokens_param !== 'none' ? { maxTokensField: endpoint.max_tokens_param } : {}),
        ...(endpoint.reasoning_effort ? { reasoningEffort: endpoint.reasoning_effort } : {}),
      });
      return new ParameterPolicy(provider, endpoint);
    }
    const apiKey = this.settings.env.OPENAI_API_KEY?.trim();
    if (!apiKey) throw new ModelSetupError(`model "${model}" needs OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI endpoint), or an entry in a --models file; offline models: ${[...OFFLINE_SUBJECTS, OFFLINE_JUDGE, OFFLINE_PARTNER].join(', ')}`);
    this.openai ??= new OpenAIProvider({ apiKey, ...(this.settings.env.OPENAI_BASE_URL ? { baseURL: this.settings.env.OPENAI_BASE_URL } : {}), ...this.common() });
    return this.openai;
  }
}
