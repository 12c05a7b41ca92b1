/**
 * Chooses the model provider for the judge and the annotator from the environment:
 * OPENAI_API_KEY set → the OpenAI-compatible provider at OPENAI_BASE_URL (default api.openai.com);
 * otherwise the given offline demo responder, clearly named as such in every stored record.
 */
import { OpenAIProvider } from '../../lib/llm/openaiProvider';
import type { LlmProvider } from '../../lib/llm/provider';
import type { ProviderInfo } from './cachedModelClient';

export interface ChosenProvider {
  provider: LlmProvider;
  info: ProviderInfo;
  offline: boolean;
}

export function providerFromEnv(
  env: NodeJS.ProcessEnv,
  offline: () => LlmProvider,
  options: { timeoutMs?: number; maxAttempts?: number } = {},
): ChosenProvider {
  const apiKey = env.OPENAI_API_KEY?.trim();
  if (!apiKey) {
    const provider = offline();
    return { provider, info: { name: provider.name, url: null }, offline: true };
  }
  const provider = new OpenAIProvider({
    apiKey,
    ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
  });
  return { provider, info: { name: provider.name, url: provider.baseURL }, offline: false };
}
