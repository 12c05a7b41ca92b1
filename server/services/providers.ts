import type { Logger } from 'pino';
import type { Condition } from '../../common/study';
import type { LlmProvider } from '../../lib/llm/provider';
import { createProvider, type ProviderConfig } from '../../lib/llm/createProvider';
import type { OfflineProviderOptions } from '../../lib/llm/offlineProvider';
import type { ProviderThread } from '../../lib/llm/providerThread/providerThread';
import type { ProviderResolver, ResolvedProvider } from './serviceContext';
import type { ModelReplyCache } from '../../lib/storage';
import { createTeammateProvider } from '../../research/teamwork/seat/teammateProvider';
import { memoryReplyCache } from '../../research/teamwork/seat/memoryReplyCache';

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
  /** The reply cache of teamwork-seat conditions' judges (the store's: server/app.ts); default: one in memory. */
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
  let seatCache: Promise<ModelReplyCache> | undefined;
  let closed = false;
  const openSeatCache = () => {
    // A reply still starting while the server closes must not open a new handle behind close().
    if (closed) return Promise.reject(new Error('the server is closing: the reply cache of teamwork seats is closed'));
    return (seatCache ??= options.replyCache ? options.replyCache() : Promise.resolve(memoryReplyCache()));
  };
  /** Closes the seat's reply cache if a teamwork condition opened it (on SQLite a file handle of its own). */
  const close = async () => {
    closed = true;
    const opened = seatCache;
    seatCache = undefined;
    // A cache that failed to open has nothing to close (the reply that asked for it already reported the error).
    if (opened) await (await opened.catch(() => undefined))?.close();
  };
  const resolve: ProviderResolver = (condition) => {
    const key = condition.teamwork ? `teamwork:${JSON.stringify(condition.teamwork)}` : condition.provider;
    const hit = options.factory ? undefined : cache.get(key);
    if (hit) return hit;
    let resolved: ResolvedProvider;
    if (options.factory) {
      const provider = options.factory(condition);
      resolved = { provider, offline: provider.name === 'offline' };
    } else if (condition.teamwork) {
      // People in the same seat: the teamwork task's teammates answer (docs/teamwork.md).
      const env = { ...(options.env ?? process.env), ...(options.openai?.baseURL ? { OPENAI_BASE_URL: options.openai.baseURL } : {}), ...(options.openai?.apiKey ? { OPENAI_API_KEY: options.openai.apiKey } : {}) };
      resolved = { provider: createTeammateProvider(condition.teamwork, env, openSeatCache), offline: false };
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
    } else throw new Error(`condition ${condition.id}: provider "teamwork" without a teamwork block`);
    return resolved;
  };
  return Object.assign(resolve, { close });
}
