/**
 * The built-in offline demo assistant: an `LlmProvider` that needs no network and no key, so a fresh
 * clone runs end to end. Same conversation → same reply (see offlineReplies.ts). It streams the reply
 * token by token at a readable pace, honours `maxTokens` (finish reason 'length') and abort, and
 * reports usage counted with o200k_base. Every result names provider "offline" and the model
 * "tandem-offline-demo-1", so demo replies can never pass for a real model's.
 */
import { decode } from 'gpt-tokenizer/encoding/o200k_base';
import type { CompletionRequest, CompletionResult, LlmProvider } from './provider';
import { offlineReply } from './offlineReplies';
import { countTokens, encodeTokens } from '../../common/tokens';
import { promptTokenCount } from './tokens';

export const OFFLINE_PROVIDER_NAME = 'offline';
export const OFFLINE_MODEL = 'tandem-offline-demo-1';

export interface OfflineProviderOptions {
  /** Streaming pace; 0 delivers as fast as possible (still in several deltas). Default 40 tokens/s. */
  tokensPerSecond?: number;
  /** Pause before the first token (ms), like a model thinking. Default 300; tests set 0. */
  firstTokenDelayMs?: number;
  /** Reported model name. Default "tandem-offline-demo-1". */
  model?: string;
}

export class OfflineProvider implements LlmProvider {
  readonly name = OFFLINE_PROVIDER_NAME;
  private readonly tokensPerSecond: number;
  private readonly firstTokenDelayMs: number;
  private readonly model: string;

  constructor(options: OfflineProviderOptions = {}) {
    this.tokensPerSecond = Math.max(0, options.tokensPerSecond ?? 40);
    this.firstTokenDelayMs = Math.max(0, options.firstTokenDelayMs ?? 300);
    this.model = options.model ?? OFFLINE_MODEL;
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const startedAt = performance.now();
    let tokens = encodeTokens(offlineReply(request.messages));
    let finishReason = 'stop';
    if (request.maxTokens !== undefined && tokens.length > request.maxTokens) {
      tokens = tokens.slice(0, request.maxTokens);
      finishReason = 'length';
    }
    const pieces = splitIntoPieces(tokens, this.tokensPerSecond);
    let text = '';
    let ttftMs: number | null = null;
    let aborted = request.signal?.aborted ?? false;

    if (request.onDelta && !aborted) {
      aborted = await wait(this.firstTokenDelayMs, request.signal);
      for (const piece of pieces) {
        if (aborted) break;
        if (ttftMs === null) ttftMs = Math.round(performance.now() - startedAt);
        text += piece.text;
        request.onDelta(piece.text);
        aborted = await wait(this.tokensPerSecond > 0 ? (piece.tokens * 1000) / this.tokensPerSecond : 0, request.signal);
      }
    } else if (!aborted) {
      text = pieces.map((p) => p.text).join('');
    }

    return {
      text,
      usage: { promptTokens: promptTokenCount(request.messages), completionTokens: countTokens(text), totalTokens: promptTokenCount(request.messages) + countTokens(text) },
      provider: this.name,
      model: this.model,
      providerUrl: null,
      systemFingerprint: null,
      finishReason: aborted ? 'aborted' : finishReason,
      ttftMs,
      latencyMs: Math.round(performance.now() - startedAt),
      attempts: 1,
      interrupted: false,
    };
  }
}

/**
 * Groups tokens into deltas: one token per delta at readable speeds; at high speeds several per delta
 * so a timer fires at most every ~25 ms. Multi-byte characters split across tokens stay whole.
 */
function splitIntoPieces(tokens: number[], tokensPerSecond: number): Array<{ text: string; tokens: number }> {
  const perPiece = tokensPerSecond === 0 ? 8 : Math.max(1, Math.round(tokensPerSecond / 40));
  const pieces: Array<{ text: string; tokens: number }> = [];
  let start = 0;
  while (start < tokens.length) {
    let end = Math.min(tokens.length, start + perPiece);
    let piece = decode(tokens.slice(start, end));
    // Extend until the piece decodes without a dangling partial character.
    while (piece.endsWith('\uFFFD') && end < tokens.length) piece = decode(tokens.slice(start, ++end));
    pieces.push({ text: piece, tokens: end - start });
    start = end;
  }
  return pieces;
}

/** Waits `ms` (0 = next macrotask); resolves true if `signal` aborted. */
function wait(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(signal?.aborted ?? false);
    };
    const onAbort = (): void => done();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function createOfflineProvider(options: OfflineProviderOptions = {}): OfflineProvider {
  return new OfflineProvider(options);
}
