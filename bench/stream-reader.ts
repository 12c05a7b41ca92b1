/**
 * `npm run bench:stream-reader` — CPU per token of reading streamed chat completions: the `openai`
 * client's own Stream (what a relay written from the openai docs does) against Tandem's reader
 * (lib/llm/chatCompletionStream.ts: the same client makes the request, eventsource-parser reads the
 * body). N concurrent streams from the load benchmark's timed provider (a child process, so its CPU is
 * not counted), the two readers alternating for --rounds rounds; prints each round and the medians.
 *
 *   npm run bench:stream-reader -- [--streams 200] [--tokens 200] [--tps 50] [--rounds 3]
 */
import OpenAI from 'openai';
import { z } from 'zod';
import { startChild } from '../tests/harness/childProcess';
import { median } from '../research/simulation/latencyStats';
import { forEachContentFragment, type StreamReader } from '../tests/harness/streamReaders';
import { benchFlags } from './benchFlags';

const Flags = z.object({
  streams: z.coerce.number().int().min(1).max(2000).default(200),
  tokens: z.coerce.number().int().min(1).max(4000).default(200),
  tps: z.coerce.number().positive().max(10_000).default(50),
  rounds: z.coerce.number().int().min(1).max(20).default(3),
});
const f = benchFlags('bench:stream-reader', { streams: { type: 'string' }, tokens: { type: 'string' }, tps: { type: 'string' }, rounds: { type: 'string' } }, Flags);

const provider = await startChild<{ baseURL: string }>(new URL('../tests/harness/timedProviderProcess.ts', import.meta.url), {
  env: { TOKENS_PER_REPLY: String(f.tokens), TOKENS_PER_SECOND: String(f.tps), MARK_EVERY: '10' },
});
const client = new OpenAI({ baseURL: provider.ready.baseURL, apiKey: 'bench', maxRetries: 0 });
const request = () => client.chat.completions.create({ model: 'timed-fake', messages: [{ role: 'user', content: 'hi' }], stream: true });

const NAMES: Record<StreamReader, string> = { sdk: 'openai Stream', tandem: 'Tandem reader' };

/** Reads one stream; returns the number of content fragments (tokens) seen. */
async function readOne(reader: StreamReader): Promise<number> {
  let tokens = 0;
  await forEachContentFragment(request(), reader, () => (tokens += 1));
  return tokens;
}

/** CPU µs of this process per token while `streams` streams are read concurrently. */
async function measure(reader: StreamReader): Promise<number> {
  const before = process.cpuUsage();
  const counts = await Promise.all(Array.from({ length: f.streams }, () => readOne(reader)));
  const used = process.cpuUsage(before);
  const tokens = counts.reduce((a, b) => a + b, 0);
  if (tokens !== f.streams * f.tokens) throw new Error(`${NAMES[reader]}: expected ${f.streams * f.tokens} tokens, got ${tokens}`);
  return (used.user + used.system) / tokens;
}

console.log(`bench:stream-reader: ${f.streams} concurrent streams × ${f.tokens} tokens at ${f.tps} tokens/s, ${f.rounds} round(s), CPU of this process only`);
// A warm-up pass of each, so that neither pays for JIT compilation and connection set-up in its figures.
await measure('sdk');
await measure('tandem');
const results: Record<StreamReader, number[]> = { sdk: [], tandem: [] };
for (let round = 1; round <= f.rounds; round++) {
  // Alternate which goes first, so a drift in background load does not favour one of them.
  const order: StreamReader[] = round % 2 === 1 ? ['sdk', 'tandem'] : ['tandem', 'sdk'];
  for (const reader of order) results[reader].push(await measure(reader));
  console.log(`  round ${round}: ${NAMES.sdk} ${results.sdk.at(-1)!.toFixed(1)} µs/token, ${NAMES.tandem} ${results.tandem.at(-1)!.toFixed(1)} µs/token`);
}
const sdk = median(results.sdk);
const ours = median(results.tandem);
console.log(`median CPU per token: ${NAMES.sdk} ${sdk.toFixed(1)} µs, ${NAMES.tandem} ${ours.toFixed(1)} µs (${(ours / sdk).toFixed(2)}×)`);
await provider.kill('SIGTERM');
