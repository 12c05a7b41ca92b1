/**
 * `npm run cluster -- --nodes 3 [--port 8080] [--adapter redis|postgres|none] [--provider-url http://…/v1]`
 *
 * A throwaway Tandem cluster on loopback (bench/cluster/cluster.ts): PostgreSQL, Redis, N nodes and HAProxy
 * rendered from deploy/haproxy.cfg. Prints the URLs and waits; Ctrl-C (or SIGTERM) stops everything and removes
 * the temp folders, and if this process is killed outright an orphan guard does the same. Without --provider-url
 * the nodes' assistant is a local OpenAI-compatible stand-in (tests/support/fakeOpenAI.ts) that streams a short
 * canned reply at --tps tokens/s. For benchmarks and fault runs use bench/load.ts --nodes and bench/node-faults.ts.
 */
import { z } from 'zod';
import { reply, startFakeOpenAI } from '../../tests/support/fakeOpenAI';
import { startCluster } from './cluster';
import { testStudyLink } from '../../common/studyLink';
import { benchFlags } from '../benchFlags';

const Flags = z.object({
  nodes: z.coerce.number().int().min(1).max(16).default(3),
  port: z.coerce.number().int().min(0).max(65535).default(8080),
  adapter: z.enum(['redis', 'postgres', 'none']).default('redis'),
  'provider-url': z.string().url().optional(),
  tps: z.coerce.number().positive().max(10_000).default(30),
});
const f = benchFlags('cluster', { nodes: { type: 'string' }, port: { type: 'string' }, adapter: { type: 'string' }, 'provider-url': { type: 'string' }, tps: { type: 'string' } }, Flags);
const fake = f['provider-url']
  ? null
  : await startFakeOpenAI({ tokensPerSecond: f.tps, responder: () => reply('This is the cluster harness stand-in assistant answering through the real openai client.') });
let cluster: Awaited<ReturnType<typeof startCluster>>;
try {
  cluster = await startCluster({
    nodes: f.nodes,
    port: f.port,
    adapter: f.adapter,
    providerBaseURL: f['provider-url'] ?? fake!.url,
    nodeEnv: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
    onLog: (line) => console.log(`  ${line}`),
  });
} catch (err) {
  console.error(`cluster: ${(err as Error).message}`);
  await fake?.close();
  process.exit(1);
}
console.log(`\nTandem cluster of ${f.nodes} node(s), adapter ${f.adapter}: ${cluster.url}`);
console.log(`  try a study: ${testStudyLink(cluster.url, 'travel-planning')}\n  HAProxy stats: ${cluster.statsUrl}`);
console.log(`  provider: ${f['provider-url'] ?? `local stand-in ${fake!.url}`}`);
console.log('Ctrl-C stops everything.');

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the cluster…`);
  await cluster.stop();
  await fake?.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
