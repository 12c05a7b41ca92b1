/**
 * Model names → clients through the reply cache. The offline reference models (offlineModels.ts) are
 * chosen by name; any other name goes to the OpenAI-compatible endpoint of OPENAI_BASE_URL with
 * OPENAI_API_KEY (the provider retries 429/5xx/timeouts with backoff itself, then returns the error).
 */
import type { TeamworkTask } from '../../../common/teamworkTask';
import { CachedModelClient, type ModelClientStats } from '../../judge/cachedModelClient';
import type { ModelReplyCache } from '../../../lib/storage';
import { OpenAIProvider } from '../../../lib/llm/openaiProvider';
import type { LlmProvider } from '../../../lib/llm/provider';
import { OFFLINE_JUDGE, OFFLINE_PARTNER, OFFLINE_SUBJECTS, OfflineJudgeModel, OfflinePartnerModel, OfflineSubjectModel, type OfflineSubject } from '../models/offlineModels';
import type { SeatClient } from './context';

export class ModelSetupError extends Error {}

export interface ProviderSettings {
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Attempts per call including the first (provider backoff between them). */
  maxAttempts?: number;
  backoffBaseMs?: number;
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
    if (!client) {
      const provider = this.providerFor(model);
      const info = provider instanceof OpenAIProvider ? { name: provider.name, url: provider.baseURL } : { name: provider.name, url: null };
      client = new CachedModelClient(provider, info, this.cache);
      this.clients.set(model, client);
    }
    return { client, model };
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

  private providerFor(model: string): LlmProvider {
    if ((OFFLINE_SUBJECTS as readonly string[]).includes(model)) return new OfflineSubjectModel(model as OfflineSubject, this.tasks);
    if (model === OFFLINE_JUDGE) return new OfflineJudgeModel(this.tasks);
    if (model === OFFLINE_PARTNER) return new OfflinePartnerModel();
    const apiKey = this.settings.env.OPENAI_API_KEY?.trim();
    if (!apiKey) throw new ModelSetupError(`model "${model}" needs OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI endpoint); offline models: ${[...OFFLINE_SUBJECTS, OFFLINE_JUDGE, OFFLINE_PARTNER].join(', ')}`);
    this.openai ??= new OpenAIProvider({
      apiKey,
      ...(this.settings.env.OPENAI_BASE_URL ? { baseURL: this.settings.env.OPENAI_BASE_URL } : {}),
      ...(this.settings.timeoutMs !== undefined ? { timeoutMs: this.settings.timeoutMs } : {}),
      maxAttempts: this.settings.maxAttempts ?? 4,
      ...(this.settings.backoffBaseMs !== undefined ? { backoffBaseMs: this.settings.backoffBaseMs } : {}),
    });
    return this.openai;
  }
}
