/**
 * Builds the `LlmProvider` for a condition's provider setting.
 *
 *  - 'openai'  → any OpenAI-compatible endpoint: OPENAI_BASE_URL / OPENAI_API_KEY from the environment
 *                unless the config overrides them. Without a key it falls back to the offline demo
 *                assistant and says so (flag on the result + a pino warning), so a fresh clone runs.
 *  - 'offline' → the built-in offline demo assistant.
 *
 * Every CompletionResult names the provider and model that really answered, so a fallback is visible
 * in the data as provider "offline", model "tandem-offline-demo-1".
 */
import pino, { type Logger } from 'pino';
import { OfflineProvider, type OfflineProviderOptions } from './offlineProvider';
import { OpenAIProvider, type OpenAIProviderOptions } from './openaiProvider';
import type { LlmProvider } from './provider';
import { ThreadedOpenAIProvider, type ProviderThread } from './providerThread/providerThread';

export interface ProviderConfig {
  provider: 'openai' | 'offline';
  /** Overrides OPENAI_BASE_URL. */
  baseURL?: string;
  /** Overrides OPENAI_API_KEY. */
  apiKey?: string;
  timeoutMs?: number;
  maxAttempts?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  maxRetryAfterMs?: number;
  maxTokensField?: OpenAIProviderOptions['maxTokensField'];
  /** Options for the offline demo assistant (used for 'offline' and for the fallback). */
  offline?: OfflineProviderOptions;
}

export interface CreatedProvider {
  provider: LlmProvider;
  /** What actually answers. */
  kind: 'openai' | 'offline';
  /** True when 'openai' was asked for but no API key was available. */
  fellBackToOffline: boolean;
  /** Human-readable reason for the fallback; null otherwise. */
  reason: string | null;
}

export interface CreateProviderContext {
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Run OpenAI-compatible calls on this worker thread instead of the caller's event loop (the server, with PROVIDER_THREAD=on). */
  thread?: ProviderThread;
}

let defaultLogger: Logger | undefined;
const warnedFallback = new WeakSet<Logger>();

/** The API key an 'openai' provider would use ('' = none: createProvider falls back to offline). */
export function openaiApiKey(config: Pick<ProviderConfig, 'apiKey'>, env: NodeJS.ProcessEnv = process.env): string {
  return (config.apiKey ?? env.OPENAI_API_KEY ?? '').trim();
}

export function createProvider(config: ProviderConfig, context: CreateProviderContext = {}): CreatedProvider {
  const env = context.env ?? process.env;
  if (config.provider === 'offline') {
    return { provider: new OfflineProvider(config.offline), kind: 'offline', fellBackToOffline: false, reason: null };
  }
  const apiKey = openaiApiKey(config, env);
  if (apiKey === '') {
    const reason = 'provider "openai" requested but OPENAI_API_KEY is not set: using the offline demo assistant';
    const logger = context.logger ?? (defaultLogger ??= pino({ name: 'llm' }));
    if (!warnedFallback.has(logger)) {
      warnedFallback.add(logger); // once per logger, not once per condition or message
      logger.warn({ requested: 'openai', used: 'offline' }, reason);
    }
    return { provider: new OfflineProvider(config.offline), kind: 'offline', fellBackToOffline: true, reason };
  }
  const baseURL = (config.baseURL ?? env.OPENAI_BASE_URL ?? '').trim();
  const options: OpenAIProviderOptions = {
    apiKey,
    ...(baseURL ? { baseURL } : {}),
    ...(config.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}),
    ...(config.maxAttempts !== undefined ? { maxAttempts: config.maxAttempts } : {}),
    ...(config.backoffBaseMs !== undefined ? { backoffBaseMs: config.backoffBaseMs } : {}),
    ...(config.backoffMaxMs !== undefined ? { backoffMaxMs: config.backoffMaxMs } : {}),
    ...(config.maxRetryAfterMs !== undefined ? { maxRetryAfterMs: config.maxRetryAfterMs } : {}),
    ...(config.maxTokensField !== undefined ? { maxTokensField: config.maxTokensField } : {}),
  };
  const provider = context.thread ? new ThreadedOpenAIProvider(context.thread, options) : new OpenAIProvider(options);
  return { provider, kind: 'openai', fellBackToOffline: false, reason: null };
}
