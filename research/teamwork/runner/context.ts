/** What a run needs besides its task: the model clients of every seat and the call settings. */
import type { ModelCall, ModelCallOutcome } from '../../judge/cachedModelClient';

/** Anything that answers a model call through the reply cache (CachedModelClient). */
export interface CallClient {
  complete(call: ModelCall, signal?: AbortSignal): Promise<ModelCallOutcome>;
}

export interface SeatClient {
  client: CallClient;
  /** Model name as sent (and recorded). */
  model: string;
}

export interface RunContext {
  subject: SeatClient;
  /** The LLM partner for a teammate; `model` is the task's choice, undefined = the run's default partner. */
  partnerFor(model: string | undefined): SeatClient;
  referee: SeatClient;
  second: SeatClient;
  /** Settles disagreements when configured; else the referee does. */
  third?: SeatClient;
  temperature: number;
  maxTokens: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** A study session whose participant's text goes into the calls (people in the same seat): linked to the cached replies so a withdrawal purges them. */
  sessionId?: string;
}

/** The run was interrupted (Ctrl-C): nothing of it is stored; its completed calls stay cached. */
export class RunAborted extends Error {
  constructor() {
    super('run aborted');
    this.name = 'RunAborted';
  }
}
