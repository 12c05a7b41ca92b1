/**
 * OpenAI-compatible calls on a worker thread (opt-in: PROVIDER_THREAD=on, `startServer({ providerThread })`).
 *
 * Streaming hundreds of replies at once means parsing hundreds of HTTP/SSE streams, and on the server's
 * event loop that work queues in front of everything else (participants' socket traffic, database
 * commits, acks). Moving it here helps acks, but each token then pays a hop between threads; on the
 * 2-core benchmark box, with the cheaper stream reader (chatCompletionStream.ts), the event loop alone
 * streams with lower and steadier latency, so the thread is off by default (BENCHMARKS.md). `ProviderThread` owns one worker (worker.ts) running the ordinary `OpenAIProvider`
 * there; `ThreadedOpenAIProvider` is an `LlmProvider` whose calls go to it. Results, retries, timeouts
 * and error classification are exactly OpenAIProvider's, because it is OpenAIProvider that runs.
 *
 * If the worker dies, every call in flight ends as a retryable network error with the text that had
 * arrived (interrupted when there was some), and the next call starts a new worker.
 */
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { spawnWorker } from '../../threads/spawnWorker';
import { providerIdentity } from '../openaiProvider';
import type { CompletionRequest, CompletionResult, LlmProvider } from '../provider';
import type { MainToWorker, ThreadProviderOptions, WorkerToMain } from './protocol';

const WORKER_MODULE = new URL('./worker.ts', import.meta.url);

/** Where a call goes: the provider's settings and the identity its results carry. */
export interface ThreadTarget {
  options: ThreadProviderOptions;
  name: string;
  providerUrl: string;
}

interface PendingCall {
  request: CompletionRequest;
  target: ThreadTarget;
  startedAt: number;
  firstDeltaAt: number | null;
  /** Text delivered to onDelta so far (what a failure result reports). */
  text: string;
  resolve(result: CompletionResult): void;
  reject(error: unknown): void;
  /** Removes the abort listener. */
  detach(): void;
}

export class ProviderThread {
  private worker: Worker | null = null;
  /** Settles when the current worker has loaded, or has failed to. */
  private ready: Promise<void> = Promise.resolve();
  private readonly calls = new Map<number, PendingCall>();
  private nextCallId = 1;
  private closed = false;

  constructor(private readonly log?: Logger) {}

  /** Calls in flight (tests, monitoring). */
  get inFlight(): number {
    return this.calls.size;
  }

  complete(target: ThreadTarget, request: CompletionRequest): Promise<CompletionResult> {
    const startedAt = performance.now();
    if (this.closed) return Promise.resolve(failure({ request, target, startedAt, firstDeltaAt: null, text: '' }, 'the server is shutting down'));

    const callId = this.nextCallId++;
    return new Promise<CompletionResult>((resolve, reject) => {
      const onAbort = () => this.post({ type: 'abort', callId });
      request.signal?.addEventListener('abort', onAbort, { once: true });
      const call: PendingCall = {
        request, target, startedAt, firstDeltaAt: null, text: '', resolve, reject,
        detach: () => request.signal?.removeEventListener('abort', onAbort),
      };
      this.calls.set(callId, call);
      const { onDelta, signal, ...wire } = request;
      try {
        this.post({ type: 'complete', callId, provider: target.options, request: { ...wire, stream: onDelta !== undefined } });
      } catch (err) {
        this.log?.error({ err }, 'could not start the provider worker');
        this.finish(callId)?.resolve(failure(call, `the provider thread could not start: ${(err as Error).message}`));
        return;
      }
      if (signal?.aborted) onAbort();
    });
  }

  /**
   * Starts the worker now rather than at the first call, so that the first reply does not wait while it
   * loads (~0.3–1 s); resolves once it has loaded (or failed to: calls then end as errors and restart it).
   * An idle worker does not keep the process alive.
   */
  async warmUp(): Promise<void> {
    if (this.closed) return;
    const worker = this.ensureWorker();
    // Referenced while loading (a caller awaiting this must not see the process exit under it), then
    // unreferenced if idle.
    await this.ready;
    if (this.worker === worker && this.calls.size === 0) worker.unref();
  }

  /** Ends the worker; calls still in flight end as errors. Later calls fail at once. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    this.failAll('the server is shutting down');
    await worker?.terminate();
  }

  /** Tests: kills the worker as a crash would (calls in flight must end as errors, the next call restarts it). */
  async crashWorkerForTests(): Promise<void> {
    await this.worker?.terminate();
  }

  private post(message: MainToWorker): void {
    this.ensureWorker().postMessage(message);
    this.worker?.ref(); // a call is in flight: keep the process alive until it ends
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = spawnWorker(WORKER_MODULE);
    let loaded!: () => void;
    this.ready = new Promise<void>((resolve) => (loaded = resolve));
    worker.on('message', (message: WorkerToMain) => (message.type === 'ready' ? loaded() : this.receive(message)));
    worker.once('exit', () => loaded());
    worker.on('error', (err) => this.log?.error({ err }, 'provider worker failed'));
    worker.on('exit', (code) => {
      if (this.worker !== worker) return; // closed or replaced on purpose
      this.worker = null;
      if (this.calls.size > 0) this.log?.error({ code, calls: this.calls.size }, 'provider worker stopped with calls in flight');
      this.failAll(`the provider thread stopped (exit code ${code})`);
    });
    this.worker = worker;
    return worker;
  }

  private receive(message: Exclude<WorkerToMain, { type: 'ready' }>): void {
    if (message.type === 'deltas') {
      for (const [callId, text] of message.batch) this.deliver(callId, text);
      return;
    }
    const call = this.finish(message.callId);
    if (!call) return; // the call already ended (its onDelta threw)
    if (message.type === 'result') call.resolve(message.result);
    else call.reject(new Error(message.message));
  }

  private deliver(callId: number, text: string): void {
    const call = this.calls.get(callId);
    if (!call?.request.onDelta) return;
    call.firstDeltaAt ??= performance.now();
    call.text += text;
    try {
      call.request.onDelta(text);
    } catch (error) {
      // As in OpenAIProvider: an exception from onDelta stops the call and is rethrown to the caller.
      this.post({ type: 'abort', callId });
      this.finish(callId)?.reject(error);
    }
  }

  private finish(callId: number): PendingCall | undefined {
    const call = this.calls.get(callId);
    if (!call) return undefined;
    this.calls.delete(callId);
    call.detach();
    if (this.calls.size === 0) this.worker?.unref();
    return call;
  }

  private failAll(reason: string): void {
    for (const callId of [...this.calls.keys()]) {
      const call = this.finish(callId);
      call?.resolve(failure(call, reason));
    }
  }
}

/** What a call reports when the worker went away under it: the shape OpenAIProvider gives a dropped connection. */
function failure(call: Pick<PendingCall, 'request' | 'target' | 'startedAt' | 'firstDeltaAt' | 'text'>, reason: string): CompletionResult {
  const aborted = call.request.signal?.aborted ?? false;
  return {
    text: call.text,
    usage: null,
    provider: call.target.name,
    model: call.request.model,
    providerUrl: call.target.providerUrl,
    systemFingerprint: null,
    finishReason: aborted ? 'aborted' : 'error',
    ttftMs: call.firstDeltaAt === null ? null : Math.round(call.firstDeltaAt - call.startedAt),
    latencyMs: Math.round(performance.now() - call.startedAt),
    attempts: 1,
    interrupted: !aborted && call.text.length > 0,
    ...(aborted ? {} : { error: { kind: 'network' as const, message: reason, retryable: true } }),
  };
}

/** An `LlmProvider` for an OpenAI-compatible endpoint whose calls run on a ProviderThread. */
export class ThreadedOpenAIProvider implements LlmProvider {
  readonly name: string;
  /** The sanitised endpoint, as OpenAIProvider records it. */
  readonly baseURL: string;
  private readonly target: ThreadTarget;

  constructor(
    private readonly thread: ProviderThread,
    options: ThreadProviderOptions,
  ) {
    const { name, providerUrl } = providerIdentity(options);
    this.name = name;
    this.baseURL = providerUrl;
    this.target = { options, name, providerUrl };
  }

  complete(request: CompletionRequest): Promise<CompletionResult> {
    return this.thread.complete(this.target, request);
  }
}
