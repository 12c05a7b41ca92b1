/**
 * Labels every utterance of every session. Utterances go to the model in chunks (with a few earlier
 * utterances as context). A reply that fails the check (count, turns, speakers, labels) gets one
 * retry that names the problem; if that fails too, each utterance of the chunk is labelled on its
 * own (again with one retry). Utterances that still fail are reported as failed, never guessed.
 * A transport failure (after the provider's own retries) fails the chunk without fallback: nothing
 * is cached, so a rerun tries again. Every completed reply is cached; a rerun makes no new calls.
 */
import type { CachedModelClient, ModelCallOutcome } from '../judge/cachedModelClient';
import type { SessionMaterial, Utterance } from '../judge/sessionMaterial';
import { runPool } from '../judge/workPool';
import type { AnnotationGuide } from './guide';
import { buildAnnotationMessages, buildAnnotationRetryMessages } from './prompt';
import { parseAnnotationReply, type UtteranceLabels } from './replyParser';

export interface AnnotateSettings {
  model: string;
  concurrency: number;
  /** Utterances per call (default 30). */
  chunkSize: number;
  /** Earlier utterances shown as context (default 4). */
  contextSize: number;
  maxTokens: number;
  timeoutMs?: number;
}

export type AnnotationMethod = 'batch' | 'batch_retry' | 'single' | 'failed';

export interface UtteranceAnnotation {
  sessionId: string;
  turn: number;
  speaker: 'user' | 'agent';
  messageId: string | null;
  grounding: string[];
  /** null when the utterance could not be labelled. */
  friction: string | null;
  method: AnnotationMethod;
  failureReason: string | null;
  guideHash: string;
  requestedModel: string;
  reportedModel: string | null;
  provider: string;
  providerUrl: string | null;
  /** Every call behind this label came from the cache. */
  cached: boolean;
}

export interface AnnotateProgress {
  done: number;
  total: number;
  cacheHits: number;
  calls: number;
  tokensSpent: number;
}

interface Chunk {
  session: SessionMaterial;
  context: Utterance[];
  targets: Utterance[];
}

export function chunkSessions(sessions: readonly SessionMaterial[], chunkSize: number, contextSize: number): Chunk[] {
  const chunks: Chunk[] = [];
  for (const session of sessions) {
    const all = session.utterances;
    for (let start = 0; start < all.length; start += chunkSize) {
      chunks.push({ session, context: all.slice(Math.max(0, start - contextSize), start), targets: all.slice(start, start + chunkSize) });
    }
  }
  return chunks;
}

export async function runAnnotate(
  sessions: readonly SessionMaterial[],
  settings: AnnotateSettings,
  guide: AnnotationGuide,
  client: CachedModelClient,
  hooks: { signal?: AbortSignal; onProgress?: (p: AnnotateProgress) => void; onChunk?: (labels: UtteranceAnnotation[]) => void | Promise<void> } = {},
): Promise<{ annotations: UtteranceAnnotation[]; interrupted: boolean }> {
  const chunks = chunkSessions(sessions, settings.chunkSize, settings.contextSize);
  const total = chunks.reduce((n, c) => n + c.targets.length, 0);
  const annotations: UtteranceAnnotation[] = [];
  const progress = () =>
    hooks.onProgress?.({ done: annotations.length, total, cacheHits: client.stats.cacheHits, calls: client.stats.calls, tokensSpent: client.stats.tokensSpent });
  progress();
  const { interrupted } = await runPool(
    chunks,
    settings.concurrency,
    async (chunk) => {
      const labels = await annotateChunk(chunk, settings, guide, client, hooks.signal);
      if (!labels) return;
      annotations.push(...labels);
      await hooks.onChunk?.(labels);
      progress();
    },
    hooks.signal,
  );
  annotations.sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : a.turn - b.turn));
  return { annotations, interrupted };
}

type Attempt = { ok: true; labels: UtteranceLabels[]; calls: ModelCallOutcome[] } | { ok: false; reason: string; transport: boolean; calls: ModelCallOutcome[] } | null;

/** One labelling attempt with one retry on a bad reply; null when aborted. */
async function labelWithRetry(
  sessionId: string,
  purpose: string,
  context: Utterance[],
  targets: Utterance[],
  settings: AnnotateSettings,
  guide: AnnotationGuide,
  client: CachedModelClient,
  signal?: AbortSignal,
): Promise<Attempt> {
  const call = (p: string, messages: ReturnType<typeof buildAnnotationMessages>) =>
    client.complete(
      {
        purpose: p,
        model: settings.model,
        messages,
        temperature: 0,
        maxTokens: settings.maxTokens,
        seed: 0,
        sampleIndex: 0,
        sessionId,
        ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
      },
      signal,
    );
  const expected = targets.map((t) => ({ turn: t.turn, speaker: t.speaker }));
  const messages = buildAnnotationMessages(guide.text, context, targets);
  const first = await call(purpose, messages);
  if (signal?.aborted || first.result.finishReason === 'aborted') return null;
  if (first.result.error) return { ok: false, reason: `transport: ${first.result.error.kind} ${first.result.error.message}`, transport: true, calls: [first] };
  const parsed = parseAnnotationReply(first.result.text, expected);
  if (parsed.ok) return { ok: true, labels: parsed.labels, calls: [first] };

  const retry = await call(`${purpose}-retry`, buildAnnotationRetryMessages(messages, first.result.text, parsed.reason, targets.length));
  if (signal?.aborted || retry.result.finishReason === 'aborted') return null;
  if (retry.result.error) return { ok: false, reason: `transport: ${retry.result.error.kind} ${retry.result.error.message}`, transport: true, calls: [first, retry] };
  const again = parseAnnotationReply(retry.result.text, expected);
  return again.ok
    ? { ok: true, labels: again.labels, calls: [first, retry] }
    : { ok: false, reason: `${parsed.reason}; after retry: ${again.reason}`, transport: false, calls: [first, retry] };
}

async function annotateChunk(
  chunk: Chunk,
  settings: AnnotateSettings,
  guide: AnnotationGuide,
  client: CachedModelClient,
  signal?: AbortSignal,
): Promise<UtteranceAnnotation[] | null> {
  const record = (u: Utterance, labels: UtteranceLabels | null, method: AnnotationMethod, calls: ModelCallOutcome[], failureReason: string | null): UtteranceAnnotation => {
    const last = calls[calls.length - 1];
    return {
      sessionId: chunk.session.sessionId,
      turn: u.turn,
      speaker: u.speaker,
      messageId: u.messageId ?? null,
      grounding: labels?.grounding ?? [],
      friction: labels?.friction ?? null,
      method,
      failureReason,
      guideHash: guide.hash,
      requestedModel: settings.model,
      reportedModel: last && !last.result.error ? last.result.model : null,
      provider: last?.result.provider ?? client.providerInfo.name,
      providerUrl: last?.result.providerUrl ?? client.providerInfo.url,
      cached: calls.length > 0 && calls.every((c) => c.cached),
    };
  };

  const batch = await labelWithRetry(chunk.session.sessionId, 'annotate', chunk.context, chunk.targets, settings, guide, client, signal);
  if (!batch) return null;
  if (batch.ok) {
    const method = batch.calls.length === 1 ? 'batch' : 'batch_retry';
    return chunk.targets.map((u, i) => record(u, batch.labels[i] ?? null, method, batch.calls, null));
  }
  if (batch.transport) return chunk.targets.map((u) => record(u, null, 'failed', batch.calls, batch.reason));

  // Fall back to one utterance at a time, each with the utterances before it as context.
  const all = chunk.session.utterances;
  const out: UtteranceAnnotation[] = [];
  for (const u of chunk.targets) {
    const index = all.indexOf(u);
    const context = all.slice(Math.max(0, index - settings.contextSize), index);
    const single = await labelWithRetry(chunk.session.sessionId, 'annotate-single', context, [u], settings, guide, client, signal);
    if (!single) return null;
    out.push(
      single.ok
        ? record(u, single.labels[0] ?? null, 'single', single.calls, null)
        : record(u, null, 'failed', single.calls, `batch: ${batch.reason}; single: ${single.reason}`),
    );
  }
  return out;
}
