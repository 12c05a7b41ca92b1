/**
 * Scores artifacts: k samples per session, each a judge call through the reply cache, parsed with
 * the score parser, with one format re-ask when the reply has no valid final score sentence.
 * Every finished sample is handed to `onSample` as soon as it is done (so an interrupted run keeps
 * it); samples cut short by an abort are not reported, and a rerun picks them up.
 * With attached images (`--images attach`) a session whose image cannot be read is not sent to the
 * model: each of its samples records the reason ("image: …") and no score.
 */
import type { TokenUsage } from '../../lib/llm/provider';
import type { JudgeSample } from '../../lib/storage';
import type { CachedModelClient, ModelCallOutcome } from './cachedModelClient';
import { auditOf, ImageAttachError, loadImage, type ImageDetail, type ImageMode, type LoadedImage } from './judgeImages';
import { buildJudgeMessages, buildReaskMessages, IMAGE_TEMPLATE_HASH, TEMPLATE_HASH, withImages, type JudgeInput } from './prompt';
import type { LoadedRubric } from '../../lib/studyFiles/rubricFiles';
import { PARSER_VERSION, parseJudgeScore } from './scoreParser';
import { runPool } from './workPool';

export interface JudgeTarget {
  /** The judged unit: a session, or a group (then `linkSessions` names its members). */
  sessionId: string;
  /** For a group's target: the sessions whose data is in its prompt, linked to the cached replies instead of `sessionId`. */
  linkSessions?: readonly string[];
  rubric: LoadedRubric;
  input: JudgeInput;
}

export interface JudgeSettings {
  model: string;
  samples: number;
  concurrency: number;
  temperature: number;
  maxTokens: number;
  /** Sample i uses seed baseSeed + i. */
  baseSeed: number;
  timeoutMs?: number;
  /** `describe` (default): image fields are a note in the text. `attach`: their images are sent to the model. */
  images?: ImageMode;
  /** `image_url.detail` of attached images; unset leaves it to the provider. */
  imageDetail?: ImageDetail;
}

/** failureReason of a sample whose session's images could not be attached. */
export type { JudgeSample };

export const IMAGE_FAILURE_PREFIX = 'image: ';

export interface JudgeProgress {
  done: number;
  total: number;
  cacheHits: number;
  calls: number;
  tokensSpent: number;
}

export interface JudgeRun {
  samples: JudgeSample[];
  interrupted: boolean;
}

function addUsage(a: TokenUsage | null, b: TokenUsage | null): TokenUsage | null {
  if (!a) return b;
  if (!b) return a;
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

export async function runJudge(
  targets: readonly JudgeTarget[],
  settings: JudgeSettings,
  client: CachedModelClient,
  hooks: { signal?: AbortSignal; onSample?: (sample: JudgeSample) => void | Promise<void>; onProgress?: (p: JudgeProgress) => void } = {},
): Promise<JudgeRun> {
  const jobs = targets.flatMap((target) => Array.from({ length: settings.samples }, (_, sample) => ({ target, sample })));
  const samples: JudgeSample[] = [];
  const progress = (): void =>
    hooks.onProgress?.({ done: samples.length, total: jobs.length, ...pick(client.stats) });
  progress();
  const { interrupted } = await runPool(
    jobs,
    settings.concurrency,
    async ({ target, sample }) => {
      const result = await judgeSample(target, sample, settings, client, hooks.signal);
      if (!result) return; // aborted mid-call: not finished, a rerun does it
      samples.push(result);
      await hooks.onSample?.(result);
      progress();
    },
    hooks.signal,
  );
  return { samples, interrupted };
}

function pick(stats: CachedModelClient['stats']) {
  return { cacheHits: stats.cacheHits, calls: stats.calls, tokensSpent: stats.tokensSpent };
}

async function judgeSample(
  target: JudgeTarget,
  sample: number,
  settings: JudgeSettings,
  client: CachedModelClient,
  signal?: AbortSignal,
): Promise<JudgeSample | null> {
  const seed = settings.baseSeed + sample;
  const attaching = target.input.images !== undefined;
  const identity = {
    sessionId: target.sessionId,
    rubricId: target.rubric.rubric.id,
    rubricVersion: target.rubric.rubric.version,
    rubricHash: target.rubric.hash,
    templateHash: attaching ? IMAGE_TEMPLATE_HASH : TEMPLATE_HASH,
    parserVersion: PARSER_VERSION,
    sample,
    requestedModel: settings.model,
  };
  const parameters = { parameters: { temperature: settings.temperature, maxTokens: settings.maxTokens }, seed };
  let images: LoadedImage[] = [];
  try {
    images = (target.input.images ?? []).map(loadImage);
  } catch (err) {
    if (!(err instanceof ImageAttachError)) throw err;
    return imageFailure({ ...identity, ...parameters }, client, err.message);
  }
  const attached = attaching ? { images: images.map(auditOf) } : {};
  const messages = withImages(buildJudgeMessages(target.rubric.rubric, target.input), images, settings.imageDetail);
  const call = (purpose: string, msgs: typeof messages) =>
    client.complete(
      {
        purpose,
        model: settings.model,
        messages: msgs,
        temperature: settings.temperature,
        maxTokens: settings.maxTokens,
        seed,
        sampleIndex: sample,
        ...(target.linkSessions ? { sessionIds: target.linkSessions } : { sessionId: target.sessionId }),
        ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
      },
      signal,
    );

  const first = await call('judge', messages);
  if (first.result.finishReason === 'aborted' || signal?.aborted) return null;
  const base = {
    ...identity,
    provider: first.result.provider,
    providerUrl: first.result.providerUrl ?? client.providerInfo.url,
    ...parameters,
    cacheKey: first.key,
    ...attached,
    createdAt: new Date().toISOString(),
  };
  const fromCalls = (calls: ModelCallOutcome[]) => {
    const last = calls[calls.length - 1] as ModelCallOutcome;
    const failed = last.result.error;
    return {
      reportedModel: failed ? null : last.result.model,
      systemFingerprint: last.result.systemFingerprint,
      usage: calls.reduce<TokenUsage | null>((u, c) => addUsage(u, c.result.usage), null),
      latencyMs: calls.reduce((n, c) => n + (c.cached ? 0 : c.result.latencyMs), 0),
      cached: calls.every((c) => c.cached),
      transportError: failed ? { kind: failed.kind, message: failed.message, ...(failed.status !== undefined ? { status: failed.status } : {}) } : null,
    };
  };
  const transportReason = (o: ModelCallOutcome) =>
    `transport: ${o.result.error?.kind ?? 'error'}${o.result.error?.status ? ` ${o.result.error.status}` : ''} after ${o.result.attempts} attempt(s): ${o.result.error?.message ?? ''}`;

  if (first.result.error) {
    return { ...base, ...fromCalls([first]), score: null, parseOk: false, failureReason: transportReason(first), rawReply: first.result.text || null, reaskReply: null, reasked: false };
  }
  const parsed = parseJudgeScore(first.result.text);
  if (parsed.ok) {
    return { ...base, ...fromCalls([first]), score: parsed.score, parseOk: true, failureReason: null, rawReply: first.result.text, reaskReply: null, reasked: false };
  }

  const reask = await call('judge-reask', buildReaskMessages(messages, first.result.text, parsed.detail));
  if (reask.result.finishReason === 'aborted' || signal?.aborted) return null;
  const common = { ...base, ...fromCalls([first, reask]), rawReply: first.result.text, reasked: true };
  if (reask.result.error) {
    return { ...common, score: null, parseOk: false, failureReason: `${parsed.reason}; re-ask ${transportReason(reask)}`, reaskReply: reask.result.text || null };
  }
  const again = parseJudgeScore(reask.result.text);
  return again.ok
    ? { ...common, score: again.score, parseOk: true, failureReason: null, reaskReply: reask.result.text }
    : { ...common, score: null, parseOk: false, failureReason: `${again.reason} after re-ask: ${again.detail}`, reaskReply: reask.result.text };
}

/** A sample of a session whose images could not be attached: no call was made, no score, the reason recorded. */
function imageFailure(
  identity: Pick<JudgeSample, 'sessionId' | 'rubricId' | 'rubricVersion' | 'rubricHash' | 'templateHash' | 'parserVersion' | 'sample' | 'requestedModel' | 'parameters' | 'seed'>,
  client: CachedModelClient,
  reason: string,
): JudgeSample {
  return {
    ...identity,
    reportedModel: null,
    systemFingerprint: null,
    provider: client.providerInfo.name,
    providerUrl: client.providerInfo.url,
    score: null,
    parseOk: false,
    failureReason: `${IMAGE_FAILURE_PREFIX}${reason}`,
    rawReply: null,
    reaskReply: null,
    reasked: false,
    usage: null,
    latencyMs: 0,
    cached: false,
    cacheKey: '',
    transportError: null,
    images: [],
    createdAt: new Date().toISOString(),
  };
}

/** Each session whose images could not be attached, with the reason (once per session). */
export function imageFailures(samples: readonly JudgeSample[]): Map<string, string> {
  const failed = new Map<string, string>();
  for (const s of samples) {
    if (s.failureReason?.startsWith(IMAGE_FAILURE_PREFIX) && !failed.has(s.sessionId)) failed.set(s.sessionId, s.failureReason.slice(IMAGE_FAILURE_PREFIX.length));
  }
  return failed;
}
