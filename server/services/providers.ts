import type { Logger } from 'pino';
import type { Condition } from '../../common/study';
import type { LlmProvider } from '../../lib/llm/provider';
import { createProvider, type ProviderConfig } from '../../lib/llm/createProvider';
import type { OfflineProviderOptions } from '../../lib/llm/offlineProvider';
import type { ProviderThread } from '../../lib/llm/providerThread/providerThread';
import type { ProviderResolver, ResolvedProvider } from './serviceContext';
import type { ModelReplyCache } from '../../lib/storage';

/** Builds the provider of the conditions a plug-in answers (e.g. `provider: teamwork`). */
export interface ConditionProviderPlugin {
  /** True for the conditions this plug-in answers. */
  answers(condition: Condition): boolean;
  /**
   * The provider for one such condition (built once per distinct condition). `env` carries the OpenAI-compatible
   * endpoint the server was given; `replyCache` opens the store's reply cache once, for judges the provider calls.
   */
  create(condition: Condition, env: NodeJS.ProcessEnv, replyCache: () => Promise<ModelReplyCache>): LlmProvider;
}

export interface ProviderResolverOptions {
  /** Replaces provider construction entirely (tests, custom deployments). */
  factory?: (condition: Condition) => LlmProvider;
  /** Overrides for OpenAI-compatible conditions (default: OPENAI_BASE_URL / OPENAI_API_KEY from env). */
  openai?: Omit<ProviderConfig, 'provider' | 'offline'>;
  offline?: OfflineProviderOptions;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Where OpenAI-compatible calls run (see llm/providerThread); default: this event loop. */
  thread?: ProviderThread;
  /** Providers of the conditions a plug-in answers (the teamwork seat's teammates), asked in this order. */
  conditionProviders?: readonly ConditionProviderPlugin[];
  /** The reply cache a plug-in's provider may open for its judges (the store's: server/app.ts). */
  replyCache?: () => Promise<ModelReplyCache>;
}

/** A ProviderResolver that closes what its providers opened (the seat's reply cache) when the server closes. */
export type ClosableProviderResolver = ProviderResolver & { close(): Promise<void> };

/**
 * Resolves the provider for a condition once and caches it (one OpenAI client per distinct config).
 * provider 'openai' without a key falls back to the offline demo assistant (createProvider decides).
 */
export function providerResolver(options: ProviderResolverOptions = {}): ClosableProviderResolver {
  const cache = new Map<string, ResolvedProvider>();
  let pluginCache: Promise<ModelReplyCache> | undefined;
  let closed = false;
  const openPluginCache = () => {
    // A reply still starting while the server closes must not open a new handle behind close().
    if (closed) return Promise.reject(new Error('the server is closing: the reply cache of plug-in providers is closed'));
    if (!options.replyCache) return Promise.reject(new Error('this server has no reply cache for plug-in providers'));
    return (pluginCache ??= options.replyCache());
  };
  /** Closes the plug-ins' reply cache if a provider opened it (on SQLite a file handle of its own). */
  const close = async () => {
    closed = true;
    const opened = pluginCache;
    pluginCache = undefined;
    // A cache that failed to open has nothing to close (the reply that asked for it already reported the error).
    if (opened) await (await opened.catch(() => undefined))?.close();
  };
  const resolve: ProviderResolver = (condition) => {
    const plugin = options.conditionProviders?.find((p) => p.answers(condition));
    const key = plugin ? `plugin:${JSON.stringify(condition)}` : condition.provider;
    const hit = options.factory ? undefined : cache.get(key);
    if (hit) return hit;
    let resolved: ResolvedProvider;
    if (options.factory) {
      const provider = options.factory(condition);
      resolved = { provider, offline: provider.name === 'offline' };
    } else if (plugin) {
      // e.g. people in the same seat: the teamwork task's teammates answer (docs/teamwork.md).
      const env = { ...(options.env ?? process.env), ...(options.openai?.baseURL ? { OPENAI_BASE_URL: options.openai.baseURL } : {}), ...(options.openai?.apiKey ? { OPENAI_API_KEY: options.openai.apiKey } : {}) };
      resolved = { provider: plugin.create(condition, env, openPluginCache), offline: false };
      cache.set(key, resolved);
    } else if (condition.provider !== 'teamwork') {
      const created = createProvider(
        { provider: condition.provider, ...(options.openai ?? {}), ...(options.offline ? { offline: options.offline } : {}) },
        {
          ...(options.env ? { env: options.env } : {}),
          ...(options.logger ? { logger: options.logger } : {}),
          ...(options.thread ? { thread: options.thread } : {}),
        },
      );
      resolved = { provider: created.provider, offline: created.kind === 'offline' };
      cache.set(key, resolved);
    } else throw new Error(`condition ${condition.id}: provider "teamwork" needs the teamwork-seat plug-in (registered by wiring/plugins.ts)`);
    return resolved;
  };
  return Object.assign(resolve, { close });
}
