/**
 * Messages between the server's main thread and the provider worker (worker.ts). Both ends are this
 * code base, in one process, so the types are the contract (nothing here crosses a trust boundary).
 */
import type { OpenAIProviderOptions } from '../openaiProvider';
import type { CompletionRequest, CompletionResult } from '../provider';

/** OpenAI provider settings that can be copied to another thread (functions cannot). */
export type ThreadProviderOptions = Omit<OpenAIProviderOptions, 'random'>;

/** A request as the worker receives it: the delta callback and the abort signal stay on the main thread. */
export type WireRequest = Omit<CompletionRequest, 'onDelta' | 'signal'> & { stream: boolean };

export type MainToWorker =
  | { type: 'complete'; callId: number; provider: ThreadProviderOptions; request: WireRequest }
  | { type: 'abort'; callId: number };

export type WorkerToMain =
  /** The worker has loaded and takes calls (sent once, first). */
  | { type: 'ready' }
  /** Text fragments of any number of calls, in arrival order; one message per batch (see worker.ts). */
  | { type: 'deltas'; batch: Array<[callId: number, text: string]> }
  /** The call's result; every fragment of the call was posted before it. */
  | { type: 'result'; callId: number; result: CompletionResult }
  /** The provider threw (it should not: providers return errors as results). */
  | { type: 'threw'; callId: number; message: string };
