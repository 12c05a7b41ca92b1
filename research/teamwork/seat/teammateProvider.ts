/**
 * The "assistant" of a teamwork-seat study condition: the teamwork task's teammates, behind the ordinary
 * provider interface, so the chat service stores, streams, retries and recovers their replies like any
 * model's. Each call replays the conversation from the participant's messages (seatReplay.ts): the judges
 * label each message through the reply cache (the store's, so the `from-study` export finds the same
 * verdicts), and the reply is the next round's posts on the task's branching. A judge or partner failure
 * becomes a retryable error result, never a throw; the participant can press Retry.
 */
import type { TeamworkSeat } from '../../../common/study';
import type { TeamworkArm, TeamworkTask } from '../../../common/teamworkTask';
import type { ModelReplyCache } from '../../../lib/storage';
import type { CompletionRequest, CompletionResult, LlmProvider } from '../../../lib/llm/provider';
import { messageText } from '../../../lib/llm/provider';
import { ModelClients } from '../runner/clients';
import { JudgeFailed } from '../runner/judgeMessage';
import { replaySeat, SeatCallFailed, type SeatContext } from './seatReplay';
import { seatTask } from './seatTask';

export const TEAMMATE_PROVIDER = 'teamwork-seat';
/** Settings of LLM partner calls in the seat (as `teamwork run`'s defaults). */
export const SEAT_PARTNER_TEMPERATURE = 0.7;
export const SEAT_PARTNER_MAX_TOKENS = 600;

export interface TeammateProviderOptions {
  task: TeamworkTask;
  arm: TeamworkArm;
  seat: TeamworkSeat;
  /** The reply cache the judges' and partners' calls go through (opened once, on first use). */
  cache: () => Promise<ModelReplyCache>;
  /** OPENAI_BASE_URL / OPENAI_API_KEY for judges and partners that are not offline models. */
  env: NodeJS.ProcessEnv;
}

/** The judges and partners of a seat, as the server and the export both build them (same cache keys). */
export function seatContext(clients: ModelClients, seat: TeamworkSeat, extra: Pick<SeatContext, 'signal' | 'sessionId'> = {}): SeatContext {
  return {
    referee: clients.seat(seat.referee),
    second: clients.seat(seat.second_rater),
    ...(seat.third_rater ? { third: clients.seat(seat.third_rater) } : {}),
    partnerFor: (model) => clients.seat(model ?? seat.partner),
    temperature: SEAT_PARTNER_TEMPERATURE,
    maxTokens: SEAT_PARTNER_MAX_TOKENS,
    ...extra,
  };
}

export class TeammateProvider implements LlmProvider {
  readonly name = TEAMMATE_PROVIDER;
  private clients: Promise<ModelClients> | undefined;

  constructor(private readonly options: TeammateProviderOptions) {}

  /** The model name recorded with every reply: which task and arm answered. */
  get model(): string {
    return `teammate:${this.options.task.id}/${this.options.arm}`;
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started); // whole ms, as the stores' columns hold them
    const result = (finishReason: string, text: string, error?: CompletionResult['error']): CompletionResult => ({
      text, usage: null, provider: TEAMMATE_PROVIDER, model: this.model, providerUrl: null, systemFingerprint: null, finishReason,
      ttftMs: text ? elapsed() : null, latencyMs: elapsed(), attempts: 1, interrupted: false, ...(error ? { error } : {}),
    });
    const participant = request.messages.filter((m) => m.role === 'user').map((m) => ({ text: messageText(m) }));
    try {
      this.clients ??= this.options.cache().then((cache) => new ModelClients([this.options.task], cache, { env: this.options.env }));
      const ctx = seatContext(await this.clients, this.options.seat, {
        ...(request.signal ? { signal: request.signal } : {}),
        ...(request.sessionId !== undefined ? { sessionId: request.sessionId } : {}),
      });
      const replay = await replaySeat(this.options.task, this.options.arm, participant, ctx);
      if (request.signal?.aborted) return result('aborted', '');
      request.onDelta?.(replay.reply);
      return result('stop', replay.reply);
    } catch (error) {
      if (request.signal?.aborted) return result('aborted', '');
      if (!(error instanceof JudgeFailed || error instanceof SeatCallFailed)) this.clients = undefined; // e.g. a model needing a key: rebuilt on the next call
      return result('error', '', { kind: 'server', message: `the team could not answer: ${(error as Error).message}`, retryable: true });
    }
  }
}

/** The provider of a teamwork-seat condition (server/services/providers.ts); its task was checked when the study loaded. */
export function createTeammateProvider(seat: TeamworkSeat, env: NodeJS.ProcessEnv, cache: () => Promise<ModelReplyCache>): TeammateProvider {
  return new TeammateProvider({ task: seatTask(seat.task), arm: seat.arm, seat, cache, env });
}
