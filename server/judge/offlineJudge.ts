/**
 * OFFLINE DEMO JUDGE — not an evaluation. Used when no OPENAI_API_KEY is set, so a fresh clone can
 * run `npm run judge` end to end. It reads the artifact out of the judge prompt and scores it by
 * size (empty → 1 … long and multi-part → 5) with a small seed-dependent jitter, replying in the
 * judge format. Every record it produces names provider "offline-judge-demo" and model
 * "offline-judge-demo", so demo scores can never pass for real ones.
 */
import { createHash } from 'node:crypto';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { CompletionRequest, CompletionResult, LlmProvider } from '../llm/provider';

export const OFFLINE_JUDGE_NAME = 'offline-judge-demo';

const countTokens = (text: string): number => encode(text, { disallowedSpecial: new Set() }).length;

/** The text of the artifact section of a judge prompt, or '' when there is none. */
export function artifactFromJudgePrompt(userText: string): string {
  const m = /<<<DATA (\w+) artifact>>>\n([\s\S]*?)\n<<<END \1 artifact>>>/.exec(userText);
  return m?.[2] ?? '';
}

export function offlineJudgeReply(artifact: string, seed: number): string {
  const words = artifact.split(/\s+/).filter(Boolean).length;
  const base = words < 5 ? 1 : words < 40 ? 2 : words < 150 ? 3 : words < 400 ? 4 : 5;
  const h = createHash('sha256').update(`${seed}\u0000${artifact}`).digest()[0] as number;
  const jitter = words < 5 ? 0 : h % 5 === 0 ? -1 : h % 5 === 4 ? 1 : 0;
  const score = Math.min(5, Math.max(1, base + jitter));
  return (
    `Offline demo judge: this is a size heuristic, not a real evaluation. ` +
    `The artifact has ${words} words, which maps to level ${base} on the demo scale. ` +
    `Therefore, the final score is ${score}.`
  );
}

export class OfflineJudgeProvider implements LlmProvider {
  readonly name = OFFLINE_JUDGE_NAME;

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const started = Date.now();
    const firstUser = request.messages.find((m) => m.role === 'user')?.content ?? '';
    const text = offlineJudgeReply(artifactFromJudgePrompt(firstUser), request.seed ?? 0);
    request.onDelta?.(text);
    const promptTokens = request.messages.reduce((n, m) => n + countTokens(m.content) + 3, 3);
    const completionTokens = countTokens(text);
    return {
      text,
      usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
      provider: OFFLINE_JUDGE_NAME,
      model: OFFLINE_JUDGE_NAME,
      providerUrl: null,
      systemFingerprint: null,
      finishReason: 'stop',
      ttftMs: null,
      latencyMs: Date.now() - started,
      attempts: 1,
      interrupted: false,
    };
  }
}
