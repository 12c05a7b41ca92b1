import { cpus, loadavg } from 'node:os';
import { formatReport } from '../../tests/harness/checkLog';
import { runRelayRound, type PlatformRound, type PlatformTrafficOptions } from '../../tests/harness/loadRounds';
import { formatSummary, median } from '../../research/simulation/latencyStats';
import type { AdapterKind } from './cluster';
import { runClusterRound } from './clusterRound';

/**
 * `npm run bench -- --nodes N` (bench/load.ts): the same participant traffic through clusters on PostgreSQL
 * behind HAProxy — 1 node with each adapter (none = the baseline without cross-node pushes), then N nodes with
 * each real adapter — and the bare relay replaying the first run's send times. Per configuration: token latency
 * (and its ratio to the relay), CPU per delivered token in total and per part (nodes, HAProxy, Redis,
 * PostgreSQL); at the end, what the adapter adds per token and a per-node capacity estimate from CPU per token.
 */
export interface ClusterBenchOptions extends Omit<PlatformTrafficOptions, 'log'> {
  nodes: number;
  adapters: AdapterKind[];
  rounds: number;
  providerBaseURL: string;
  tokensPerSecond: number;
  markEvery: number;
  nodeEnv: Record<string, string>;
  relayReader: 'sdk' | 'tandem';
  onStop: (stop: () => Promise<void>) => void;
}

interface Config {
  nodes: number;
  adapter: AdapterKind;
}

interface Measured {
  config: Config;
  round: PlatformRound;
  tokensDelivered: number;
}

const label = (c: Config) => `${c.nodes} node${c.nodes > 1 ? 's' : ''}, adapter ${c.adapter}`;
const us = (seconds: number | null | undefined, tokens: number) => (seconds === null || seconds === undefined ? null : (seconds * 1e6) / Math.max(1, tokens));
const fmtUs = (x: number | null) => (x === null ? 'n/a' : `${x.toFixed(0)} µs`);

export async function runClusterBench(o: ClusterBenchOptions): Promise<boolean> {
  const configs: Config[] = [
    ...o.adapters.map((adapter) => ({ nodes: 1, adapter })),
    ...(o.nodes > 1 ? o.adapters.filter((a) => a !== 'none').map((adapter) => ({ nodes: o.nodes, adapter })) : []),
  ];
  const byConfig = new Map<string, Measured[]>();
  const relayP50: number[] = [];
  const relayP99: number[] = [];
  let allOk = true;
  for (let round = 1; round <= o.rounds; round++) {
    let schedule: number[][] | null = null;
    for (const config of configs) {
      console.log(`\n=== round ${round}/${o.rounds}: ${label(config)} (PostgreSQL, HAProxy) — load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} (${cpus().length} cores)`);
      const r = await runClusterRound({ ...o, nodes: config.nodes, adapter: config.adapter, onCluster: o.onStop });
      schedule ??= r.sendSchedule;
      const tokensDelivered = r.tokens.count * o.markEvery;
      const s = r.simulation;
      console.log(`  completed ${s.completed}/${s.participants}, errors ${s.errors}${s.errorSamples.length ? ` (${s.errorSamples.join(' | ')})` : ''}, wall ${(s.wallMs / 1000).toFixed(1)} s, replies streaming at once (mean) ${r.meanConcurrentReplies.toFixed(0)}; streamed replies that did not add up to the stored text: ${s.streamMismatches}`);
      console.log(`  chat:send ack latency:      ${formatSummary(s.chatAck)}`);
      console.log(`  provider token → client:    ${formatSummary(r.tokens)}`);
      const parts = Object.entries(r.cpuByPart).map(([part, sec]) => `${part} ${sec?.toFixed(1) ?? 'n/a'} s (${fmtUs(us(sec, tokensDelivered))}/token)`);
      console.log(`  CPU: total ${r.cpuSeconds?.toFixed(1) ?? 'n/a'} s (${fmtUs(us(r.cpuSeconds, tokensDelivered))} per token delivered) = ${parts.join(', ')}`);
      console.log(`  log vs database: ${formatReport(r.check)}`);
      allOk &&= r.ok;
      const key = label(config);
      byConfig.set(key, [...(byConfig.get(key) ?? []), { config, round: r, tokensDelivered }]);
    }
    if (schedule) {
      const relay = await runRelayRound({ providerBaseURL: o.providerBaseURL, schedule, reader: o.relayReader, onRelay: o.onStop });
      console.log(`\n=== round ${round}: bare socket.io relay (same provider, same send times, no DB, one process)`);
      console.log(`  provider token → client:    ${formatSummary(relay.tokens)}; relay CPU ${fmtUs(us(relay.cpuSeconds, relay.tokens.count * o.markEvery))} per token`);
      console.log(`  relay:chat ack (on receipt): ${formatSummary(relay.acks)}`);
      relayP50.push(relay.tokens.p50);
      relayP99.push(relay.tokens.p99);
    }
  }

  console.log(`\nsummary (median over ${o.rounds} round(s); ratios against the bare relay's token latency):`);
  const perToken = (m: Measured[], part?: string) => median(m.map((x) => us(part ? x.round.cpuByPart[part] : x.round.cpuSeconds, x.tokensDelivered) ?? NaN));
  const baseline = byConfig.get(label({ nodes: 1, adapter: 'none' }));
  for (const [key, m] of byConfig) {
    const p50 = median(m.map((x) => x.round.tokens.p50));
    const p99 = median(m.map((x) => x.round.tokens.p99));
    const ratio = relayP50.length ? `ratio p50 ${(p50 / median(relayP50)).toFixed(2)}×, p99 ${(p99 / median(relayP99)).toFixed(2)}×` : 'no relay run';
    const nodeUs = perToken(m, 'nodes');
    const redisUs = m[0]!.round.cpuByPart.redis !== undefined ? perToken(m, 'redis') : 0;
    const adapterUs = baseline ? nodeUs - perToken(baseline, 'nodes') + redisUs : NaN;
    console.log(
      `  ${key.padEnd(26)} token p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (${ratio}); CPU/token total ${perToken(m).toFixed(0)} µs, nodes ${nodeUs.toFixed(0)} µs, postgres ${perToken(m, 'postgres').toFixed(0)} µs, haproxy ${perToken(m, 'haproxy').toFixed(0)} µs, redis ${redisUs.toFixed(0)} µs` +
        (baseline && m[0]!.config.adapter !== 'none' ? `; adapter adds ≈ ${adapterUs.toFixed(0)} µs/token (nodes' extra + redis)` : ''),
    );
  }
  // Capacity: one core spent on a node delivers 1e6 / (node µs per token) tokens/s; replies stream at --tps each.
  for (const [key, m] of byConfig) {
    if (m[0]!.config.adapter === 'none') continue;
    const perNodeCore = 1e6 / perToken(m, 'nodes');
    console.log(`  capacity (${key}): ≈ ${perNodeCore.toFixed(0)} tokens/s per node core → ≈ ${(perNodeCore / o.tokensPerSecond).toFixed(0)} replies streaming at once at ${o.tokensPerSecond} tokens/s per node core (nodes only; PostgreSQL, Redis and HAProxy need their own share)`);
  }
  return allOk;
}
