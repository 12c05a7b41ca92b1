/**
 * The provider worker thread: runs the OpenAI-compatible calls of participant chat (HTTP, SSE parsing,
 * retries, backoff) so that this work does not queue in front of participants' socket traffic and
 * database commits on the server's event loop. Started by ProviderThread (providerThread.ts).
 */
import { parentPort } from 'node:worker_threads';
import { OpenAIProvider } from '../openaiProvider';
import type { MainToWorker, ThreadProviderOptions, WorkerToMain } from './protocol';

const port = parentPort;
if (!port) throw new Error('providerThread/worker.ts must run as a worker thread');

/** One client per distinct configuration, as on the main thread (keeps HTTP connections alive). */
const providers = new Map<string, OpenAIProvider>();
const running = new Map<number, AbortController>();

const providerFor = (options: ThreadProviderOptions): OpenAIProvider => {
  const key = JSON.stringify(options);
  let provider = providers.get(key);
  if (!provider) providers.set(key, (provider = new OpenAIProvider(options)));
  return provider;
};

const post = (message: WorkerToMain): void => port.postMessage(message);

/**
 * Fragments are posted in batches: everything that arrived while processing one socket read (all calls)
 * goes out as one message once that read's microtasks are done (process.nextTick runs after them), so
 * there is no added delay and one message per read rather than one per token.
 */
let batch: Array<[number, string]> = [];
const flush = (): void => {
  if (batch.length === 0) return;
  post({ type: 'deltas', batch });
  batch = [];
};
const queueDelta = (callId: number, text: string): void => {
  if (batch.length === 0) process.nextTick(flush);
  batch.push([callId, text]);
};

port.on('message', (message: MainToWorker) => {
  if (message.type === 'abort') {
    running.get(message.callId)?.abort();
    return;
  }
  const { callId } = message;
  const { stream, ...request } = message.request;
  const controller = new AbortController();
  running.set(callId, controller);
  providerFor(message.provider)
    .complete({ ...request, signal: controller.signal, ...(stream ? { onDelta: (text: string) => queueDelta(callId, text) } : {}) })
    .then(
      (result) => {
        flush();
        post({ type: 'result', callId, result });
      },
      (error: unknown) => {
        flush();
        post({ type: 'threw', callId, message: error instanceof Error ? error.message : String(error) });
      },
    )
    .finally(() => running.delete(callId));
});

post({ type: 'ready' });
