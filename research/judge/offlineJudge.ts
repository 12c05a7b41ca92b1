/**
 * OFFLINE DEMO JUDGE — not an evaluation. Used when no OPENAI_API_KEY is set, so a fresh clone can
 * run `npm run judge` end to end. It reads the artifact out of the judge prompt and scores it by
 * size (empty → 1 … long and multi-part → 5) with a small seed-dependent jitter, replying in the
 * judge format. Every record it produces names provider "offline-judge-demo" and model
 * "offline-judge-demo", so demo scores can never pass for real ones.
 */
import { createHash } from 'node:crypto';
import { firstUserText, InstantReplyProvider } from './instantReplyProvider';

export const OFFLINE_JUDGE_NAME = 'offline-judge-demo';

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

export class OfflineJudgeProvider extends InstantReplyProvider {
  constructor() {
    super(OFFLINE_JUDGE_NAME, (request) => offlineJudgeReply(artifactFromJudgePrompt(firstUserText(request)), request.seed ?? 0));
  }
}
