/**
 * `npm run bench` — load comparison: N concurrent simulated participants (default 500) against one
 * Tandem server (child process, 127.0.0.1), the provider pointed at a local OpenAI-compatible server
 * (child process) streaming 200-token replies at 50 tokens/s, each token stamped with the time it was
 * written (research/simulation/tokenMarkers.ts). Then the same traffic through a bare socket.io relay (same
 * provider, same `openai` client, no database/validation/session logic), replaying the moments the
 * platform's participants sent their messages. Reports messages/s, p50/p99 chat:send ack latency, the
 * provider-token → client latency on both paths and their ratio, CPU per token, and checks the
 * simulator's log against the database (zero lost, zero duplicated). The pair runs --rounds times (default
 * 3) back to back, a fresh server each round, and the median ratios are reported: one round on a shared
 * 2-core machine moves by ±0.3.
 *
 *   npm run bench -- [--participants 500] [--turns 3] [--tokens 200] [--tps 50] [--mark-every 10] [--think-ms 1000-3000]
 *                    [--rounds 3] [--study travel-planning] [--log load.jsonl] [--max-seconds 900] [--skip-relay]
 *                    [--provider-thread on|off] [--relay-reader sdk|tandem] [--profile <dir>] [--database sqlite|postgres] [--statements on|off]
 *                    [--split-cpu] [--sqlite-meter] [--groups 3 --agents 1]
 *   --provider-thread: on = provider calls on a worker thread (default off: on the event loop)
 *   --relay-reader: how the relay reads provider streams: sdk = the openai client's Stream (default, a relay as the
 *                   openai docs write it), tandem = the platform's own reader, to isolate the platform's work per token
 *   --profile: V8 CPU profiles of the server, one per thread, and of the relay in <dir>/relay
 *   --database: the server's store (default sqlite); postgres starts a throwaway local cluster for the run
 *               (tests/support/postgresCluster.ts: fsync off, like the test cluster) with a fresh database per round
 *   --statements on|off: with postgres, count the server's statements with pg_stat_statements (default on); off runs
 *               the cluster without the extension, whose per-statement bookkeeping the backends' CPU would include
 *   --sqlite-meter: SQLite only: each round, the server's event-loop time in SQLite statements, by statement
 *               (tests/harness/sqliteMeter.ts)
 *   --split-cpu: after the rounds, a platform and a relay run whose replies are one token each (no think times), to
 *               split the CPU into a session's own part and each streamed token's (bench/cpuSplit.ts)
 *   --groups G: group mode instead (bench/groupLoad.ts): people in groups of G with --agents K agents each (default 1),
 *               message fan-out p50/p99 to every member and messages lost (must be 0); --participants a multiple of G
 *   --nodes N:  multi-node comparison instead (bench/cluster/clusterBench.ts): through the cluster harness (HAProxy,
 *               PostgreSQL, Redis), 1 node with each of --adapters (default none,redis,postgres), then N nodes with
 *               each real adapter, and the relay; CPU per token per part and what the adapter adds
 *
 * Stops by itself: every participant has a deadline and a watchdog ends the run after --max-seconds.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { startChild } from '../tests/harness/childProcess';
import { JsonlLog } from '../research/simulation/jsonlLog';
import { runPlatformRound, runRelayRound, type RelayRound, type RigCpu } from '../tests/harness/loadRounds';
import { formatMs, formatSummary, median, type LatencySummary } from '../research/simulation/latencyStats';
import { formatReport } from '../tests/harness/checkLog';
import { postgresBinDir, startPostgresCluster } from '../tests/support/postgresCluster';
import type { AdapterKind } from './cluster/cluster';
import { runClusterBench } from './cluster/clusterBench';
import { runGroupBench } from './groupLoad';
import { formatCpuSplit, runOneTokenRounds, splitCpu, type CpuRun } from './cpuSplit';
import { formatStatementCounts, resetStatementCounts, statementCounts, type StatementCounts } from './statementCounts';
import { benchFlags } from './benchFlags';
import { formatMeterRows, lastMeterSnapshot } from '../tests/harness/sqliteMeter';

const Flags = z.object({
  participants: z.coerce.number().int().min(1).max(2000).default(500),
  turns: z.coerce.number().int().min(1).max(20).default(3),
  tokens: z.coerce.number().int().min(1).max(4000).default(200),
  tps: z.coerce.number().positive().max(10_000).default(50),
  'mark-every': z.coerce.number().int().min(1).max(1000).default(10),
  'think-ms': z.string().regex(/^\d+(-\d+)?$/, 'must be N or MIN-MAX').default('1000-3000'),
  rounds: z.coerce.number().int().min(1).max(10).default(3),
  study: z.string().default('travel-planning'),
  log: z.string().optional(),
  'max-seconds': z.coerce.number().positive().max(3600).default(900),
  'skip-relay': z.boolean().default(false),
  'split-cpu': z.boolean().default(false),
  'sqlite-meter': z.boolean().default(false),
  'provider-thread': z.enum(['on', 'off']).default('off'),
  'relay-reader': z.enum(['sdk', 'tandem']).default('sdk'),
  profile: z.string().optional(),
  database: z.enum(['sqlite', 'postgres']).default('sqlite'),
  statements: z.enum(['on', 'off']).default('on'),
  nodes: z.coerce.number().int().min(1).max(16).optional(),
  groups: z.coerce.number().int().min(2, 'a group has at least 2 people').max(20).optional(),
  agents: z.coerce.number().int().min(0).max(5).default(1),
  adapters: z
    .string()
    .regex(/^(none|redis|postgres)(,(none|redis|postgres))*$/, 'a comma list of none, redis, postgres')
    .default('none,redis,postgres'),
});
const f = benchFlags('bench', {
  participants: { type: 'string' }, turns: { type: 'string' }, tokens: { type: 'string' }, tps: { type: 'string' }, 'mark-every': { type: 'string' },
  'think-ms': { type: 'string' }, rounds: { type: 'string' }, study: { type: 'string' }, log: { type: 'string' },
  'max-seconds': { type: 'string' }, 'skip-relay': { type: 'boolean' }, 'split-cpu': { type: 'boolean' }, 'sqlite-meter': { type: 'boolean' }, 'provider-thread': { type: 'string' }, 'relay-reader': { type: 'string' },
  profile: { type: 'string' }, database: { type: 'string' }, statements: { type: 'string' }, nodes: { type: 'string' }, adapters: { type: 'string' },
  groups: { type: 'string' }, agents: { type: 'string' },
}, Flags);
if (f.groups !== undefined && f.participants % f.groups !== 0) {
  console.error(`bench: --participants: ${f.participants} people do not fill groups of ${f.groups} (use a multiple of --groups)`);
  process.exit(2);
}
if (f['sqlite-meter'] && (f.database !== 'sqlite' || f.nodes !== undefined || f.groups !== undefined)) {
  console.error('bench: --sqlite-meter: only for a single SQLite server (no --database postgres, --nodes or --groups)');
  process.exit(2);
}
const [thinkMin, thinkMax] = f['think-ms'].split('-').map(Number) as [number, number | undefined];
const think = { min: thinkMin, max: thinkMax ?? thinkMin };
const load = () => `${loadavg().map((x) => x.toFixed(2)).join(' ')} (${cpus().length} cores)`;

const killers: Array<() => Promise<void>> = [];
const watchdog = setTimeout(() => {
  console.error(`bench: stopped by the --max-seconds ${f['max-seconds']} watchdog`);
  for (const kill of killers) void kill();
  process.exit(3);
}, f['max-seconds'] * 1000);
watchdog.unref();

console.log(`bench: ${f.participants} participants × ${f.turns} turns, replies of ${f.tokens} tokens at ${f.tps} tokens/s (every ${f['mark-every']}th timestamped), think ${f['think-ms']} ms, study ${f.groups === undefined ? f.study : 'group-bench (generated from group-demo)'}, ${f.groups === undefined ? f.rounds : 1} round(s)`);
console.log(`  provider calls ${f['provider-thread'] === 'on' ? 'on a worker thread' : 'on the event loop'}; relay reads streams with ${f['relay-reader'] === 'sdk' ? "the openai client's Stream" : "Tandem's reader"}`);
const provider = await startChild<{ baseURL: string }>(new URL('../tests/harness/timedProviderProcess.ts', import.meta.url), {
  env: { TOKENS_PER_REPLY: String(f.tokens), TOKENS_PER_SECOND: String(f.tps), MARK_EVERY: String(f['mark-every']) },
});
killers.push(() => provider.kill('SIGKILL'));
if (f.nodes !== undefined) {
  // Multi-node comparison: clusters on PostgreSQL behind HAProxy (the --database flag does not apply).
  const ok = await runClusterBench({
    nodes: f.nodes, adapters: f.adapters.split(',') as AdapterKind[], rounds: f.rounds, providerBaseURL: provider.ready.baseURL, providerPid: provider.child.pid!,
    studyId: f.study, participants: f.participants, turns: f.turns, think, sessionDeadlineMs: (f['max-seconds'] - 10) * 1000,
    tokensPerSecond: f.tps, markEvery: f['mark-every'], nodeEnv: { PROVIDER_THREAD: f['provider-thread'] }, relayReader: f['relay-reader'],
    onStop: (stop) => killers.push(stop),
  });
  await provider.kill('SIGTERM');
  console.log(`zero lost / zero duplicated / all completed in every run: ${ok ? 'yes — PASS' : 'NO — FAIL'}`);
  console.log(`load average at end: ${load()}`);
  clearTimeout(watchdog);
  process.exit(ok ? 0 : 1);
}
const fileLog = f.log ? new JsonlLog(f.log) : undefined;
const cluster = f.database === 'postgres' ? await startPostgresCluster({ statementStats: f.statements === 'on' }) : undefined;
if (cluster) {
  killers.push(() => cluster.stop());
  console.log(`  store: PostgreSQL (throwaway cluster on 127.0.0.1:${cluster.port}, fsync off)`);
}
if (f.groups !== undefined) {
  // Group mode: people in groups with agents; --rounds, the relay and the single-session checks do not apply.
  console.log(`  group mode: groups of ${f.groups} people + ${f.agents} agent(s) each, ${f.participants / f.groups} groups; think ${think.min} ms between a person's messages`);
  const ok = await runGroupBench({
    groupSize: f.groups, agents: f.agents, participants: f.participants, turns: f.turns, thinkMs: think.min, providerBaseURL: provider.ready.baseURL,
    ...(cluster ? { databaseUrl: roundDatabase(1)! } : {}), timeoutMs: Math.min(120_000, (f['max-seconds'] - 10) * 1000), onStop: (stop) => killers.push(stop),
  });
  await provider.kill('SIGTERM');
  await cluster?.stop();
  console.log(`zero lost / all seated and completed: ${ok ? 'yes — PASS' : 'NO — FAIL'}`);
  console.log(`load average at end: ${load()}`);
  clearTimeout(watchdog);
  process.exit(ok ? 0 : 1);
}
/** A fresh, empty database of the cluster for one round (createdb: the bench itself holds no driver). */
function roundDatabase(round: number): string | undefined {
  if (!cluster) return undefined;
  const name = `bench_round_${round}_${process.pid}`;
  execFileSync(path.join(postgresBinDir(), 'createdb'), ['-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', name]);
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  return url.toString();
}
// Timed samples: every mark-every-th token carries its send time (the rest are plain one-token words).
const expectedTokens = f.participants * f.turns * Math.ceil(f.tokens / f['mark-every']);
const ratios: Array<{ p50: number; p99: number }> = [];
/** chat:send ack ÷ the relay's ack on receipt, per round. */
const ackRatios: Array<{ p50: number; p99: number }> = [];
/** CPU per delivered token, server ÷ relay, per round (the issue's "store adds no per-token work" figure). */
const cpuRatios: number[] = [];
/** Each round's CPU and tokens delivered, for --split-cpu. */
const fullRuns: Array<{ platform: CpuRun; relay: CpuRun }> = [];
let allOk = true;

for (let round = 1; round <= f.rounds; round++) {
  console.log(`\n=== round ${round}/${f.rounds} — load average ${load()}`);
  const databaseUrl = roundDatabase(round);
  let counts: StatementCounts | null = null;
  const meterFile = f['sqlite-meter'] ? path.join(mkdtempSync(path.join(tmpdir(), 'tandem-sqlite-meter-')), 'meter.jsonl') : undefined;
  const p = await runPlatformRound({
    providerBaseURL: provider.ready.baseURL, providerPid: provider.child.pid, studyId: f.study, participants: f.participants, turns: f.turns, think,
    sessionDeadlineMs: (f['max-seconds'] - 10) * 1000, ...(fileLog ? { log: fileLog } : {}), onServer: (kill) => killers.push(kill),
    serverEnv: { PROVIDER_THREAD: f['provider-thread'], ...(meterFile ? { TANDEM_SQLITE_METER: meterFile } : {}) }, ...(f.profile ? { profileDir: f.profile } : {}),
    ...(cluster ? { databaseUrl: databaseUrl!, postgresDir: cluster.dir } : {}),
    // The server's statements only: counted from when it serves (migrations done) to when it stops (before the check reads the store).
    ...(cluster && f.statements === 'on' ? { onServing: () => resetStatementCounts(cluster), onStopped: () => (counts = statementCounts(cluster, new URL(databaseUrl!).pathname.slice(1))) } : {}),
  });
  const serverCpu = p.cpuByPart.server ?? null;
  const databaseCpu = p.cpuByPart.database ?? null;
  const s = p.simulation;
  console.log(`platform (Tandem server, ${cluster ? 'PostgreSQL' : 'SQLite'}, validation, trajectory):`);
  console.log(`  completed ${s.completed}/${s.participants}, errors ${s.errors}${s.errorSamples.length ? ` (${s.errorSamples.join(' | ')})` : ''}, wall ${(s.wallMs / 1000).toFixed(1)} s`);
  console.log(`  chat messages acked: ${s.messagesAcked} → ${s.messagesPerSecond.toFixed(1)} messages/s; timed tokens delivered ${p.tokens.count}/${expectedTokens}; all tokens → ${((p.tokens.count * f['mark-every']) / (s.wallMs / 1000)).toFixed(0)} tokens/s`);
  console.log(`  replies streaming at once (mean): ${p.meanConcurrentReplies.toFixed(0)}; streamed replies that did not add up to the stored text: ${s.streamMismatches}`);
  console.log(`  chat:send ack latency:      ${formatSummary(s.chatAck)}`);
  console.log(`  provider token → client:    ${formatSummary(p.tokens)}`);
  const tokensDelivered = p.tokens.count * f['mark-every'];
  console.log(`  other acks p50 / p99: ${otherAcks(s.acksByEvent)}`);
  // A reply's tokens read together go out as one chat:delta (server/services/replyRun.ts), so a busier loop sends
  // fewer, larger pushes and spends less CPU per token; the relay pushes every token. Read CPU per token with this.
  console.log(`  chat:delta pushes: ${s.deltas} (${(tokensDelivered / Math.max(1, s.deltas)).toFixed(2)} tokens per push; the relay pushes each token)`);
  console.log(`  server process CPU: ${serverCpu?.toFixed(1) ?? 'n/a'} s (${perToken(serverCpu, tokensDelivered)} per token delivered)`);
  if (cluster) console.log(`  PostgreSQL backends CPU: ${databaseCpu?.toFixed(1) ?? 'n/a'} s (${perToken(databaseCpu, tokensDelivered)} per token); server + database ${perToken(p.cpuSeconds, tokensDelivered)} per token`);
  console.log(`  server event-loop delay: ${p.serverLagMs ? `p50 ${formatMs(p.serverLagMs.p50)}, p99 ${formatMs(p.serverLagMs.p99)}, max ${formatMs(p.serverLagMs.max)}` : 'n/a'}`);
  console.log(`  server event-loop utilisation: ${p.serverElu ? `busiest 10 s ${p.serverElu.busiest10s.toFixed(2)}, whole run ${p.serverElu.whole.toFixed(2)} (at 1.00 every event, an ack too, waits for a turn of a saturated loop)` : 'n/a'}`);
  console.log(`  load-generator event-loop delay: p50 ${formatMs(p.clientLagMs.p50)}, p99 ${formatMs(p.clientLagMs.p99)}`);
  console.log(`  machine: ${machineUse(serverCpu, p.rig, s.wallMs, databaseCpu)}`);
  console.log(`  log vs database: ${formatReport(p.check)}`);
  if (counts) for (const line of formatStatementCounts(counts, f.participants, s.messagesAcked)) console.log(line);
  if (meterFile) {
    for (const line of formatMeterRows(lastMeterSnapshot(meterFile), f.participants)) console.log(`  ${line}`);
    rmSync(path.dirname(meterFile), { recursive: true, force: true });
  }
  allOk &&= p.ok;

  if (f['skip-relay']) continue;
  const r: RelayRound = await runRelayRound({ providerBaseURL: provider.ready.baseURL, providerPid: provider.child.pid, schedule: p.sendSchedule, reader: f['relay-reader'], onRelay: (kill) => killers.push(kill), ...(f.profile ? { profileDir: path.join(f.profile, 'relay') } : {}) });
  console.log('bare socket.io relay (same provider and openai client, same send times; no DB, no validation):');
  console.log(`  replies ${r.traffic.replies}, failed ${r.traffic.failedReplies}, wall ${(r.traffic.wallMs / 1000).toFixed(1)} s, timed tokens ${r.tokens.count}/${expectedTokens}, replies streaming at once (mean) ${r.traffic.meanConcurrentReplies.toFixed(0)}`);
  console.log(`  relay:chat ack (on receipt): ${formatSummary(r.acks)}`);
  console.log(`  provider token → client:    ${formatSummary(r.tokens)}`);
  const relayTokensDelivered = r.tokens.count * f['mark-every'];
  console.log(`  relay process CPU: ${r.cpuSeconds?.toFixed(1) ?? 'n/a'} s (${perToken(r.cpuSeconds, relayTokensDelivered)} per token delivered)`);
  console.log(`  relay event-loop utilisation: ${r.elu ? `busiest 10 s ${r.elu.busiest10s.toFixed(2)}, whole run ${r.elu.whole.toFixed(2)}` : 'n/a'}`);
  console.log(`  load-generator event-loop delay: p50 ${formatMs(r.clientLagMs.p50)}, p99 ${formatMs(r.clientLagMs.p99)}`);
  console.log(`  machine: ${machineUse(r.cpuSeconds, r.rig, r.traffic.wallMs)}`);
  const ratio = { p50: p.tokens.p50 / r.tokens.p50, p99: p.tokens.p99 / r.tokens.p99 };
  ratios.push(ratio);
  if (serverCpu !== null && r.cpuSeconds !== null) cpuRatios.push(cpuPerToken(serverCpu, tokensDelivered) / cpuPerToken(r.cpuSeconds, relayTokensDelivered));
  if (p.cpuSeconds !== null && r.cpuSeconds !== null)
    fullRuns.push({ platform: { cpuSeconds: p.cpuSeconds, tokens: tokensDelivered }, relay: { cpuSeconds: r.cpuSeconds, tokens: relayTokensDelivered } });
  console.log(`  round ${round} ratio platform/relay: p50 ${ratio.p50.toFixed(2)}×, p99 ${ratio.p99.toFixed(2)}×`);
  const ackRatio = { p50: s.chatAck.p50 / r.acks.p50, p99: s.chatAck.p99 / r.acks.p99 };
  ackRatios.push(ackRatio);
  console.log(`  round ${round} ack platform/relay: p50 ${ackRatio.p50.toFixed(2)}×, p99 ${ackRatio.p99.toFixed(2)}× (the relay acks on receipt: its ack is the loaded loop's own wait)`);
}
await fileLog?.close();
await provider.kill('SIGTERM');
let split: string[] = [];
if (f['split-cpu'] && fullRuns.length > 0) {
  console.log(`\n=== one-token run for --split-cpu — load average ${load()}`);
  const one = await runOneTokenRounds({
    studyId: f.study, participants: f.participants, turns: f.turns, sessionDeadlineMs: (f['max-seconds'] - 10) * 1000,
    serverEnv: { PROVIDER_THREAD: f['provider-thread'] }, relayReader: f['relay-reader'], onStop: (stop) => killers.push(stop),
    ...(cluster ? { database: { url: roundDatabase(f.rounds + 1)!, postgresDir: cluster.dir } } : {}),
  });
  allOk &&= one.ok;
  const mean = (runs: CpuRun[]): CpuRun => ({ cpuSeconds: runs.reduce((a, x) => a + x.cpuSeconds, 0) / runs.length, tokens: runs.reduce((a, x) => a + x.tokens, 0) / runs.length });
  split = formatCpuSplit(
    splitCpu(mean(fullRuns.map((x) => x.platform)), one.platform, f.participants),
    splitCpu(mean(fullRuns.map((x) => x.relay)), one.relay, f.participants),
    cluster ? ' + PostgreSQL backends' : '',
  );
} else if (f['split-cpu']) console.log('--split-cpu: no round with the relay and CPU figures to split');
await cluster?.stop();

if (ratios.length > 0) {
  console.log(
    `\nadded latency ratio platform/relay (median of ${ratios.length} round(s)): p50 ${median(ratios.map((x) => x.p50)).toFixed(2)}×, ` +
      `p99 ${median(ratios.map((x) => x.p99)).toFixed(2)}×; goal ≤ 1.2× at 500 participants (issue 6)`,
  );
  console.log(`chat:send ack ÷ relay ack on receipt (median of ${ackRatios.length}): p50 ${median(ackRatios.map((x) => x.p50)).toFixed(2)}×, p99 ${median(ackRatios.map((x) => x.p99)).toFixed(2)}×`);
  if (cpuRatios.length > 0)
    console.log(`CPU per token delivered, server ÷ relay (median of ${cpuRatios.length}): ${median(cpuRatios).toFixed(2)}× (rounds: ${cpuRatios.map((x) => x.toFixed(2)).join(', ')}); goal ≤ 1.15× (issue 12)`);
}
for (const line of split) console.log(line);
console.log(`zero lost / zero duplicated / all completed in every round: ${allOk ? 'yes — PASS' : 'NO — FAIL'}`);
console.log(`load average at end: ${load()}`);
process.exitCode = allOk ? 0 : 1;
clearTimeout(watchdog);

/** Mean cores used over the run by the server (or relay), the load generator and the provider, and their sum. */
function machineUse(serverCpu: number | null, rig: RigCpu, wallMs: number, databaseCpu: number | null = null): string {
  const cores = (seconds: number | null) => (seconds === null ? 'n/a' : (seconds / (wallMs / 1000)).toFixed(2));
  const total = serverCpu !== null && rig.providerSeconds !== null ? serverCpu + rig.generatorSeconds + rig.providerSeconds + (databaseCpu ?? 0) : null;
  const database = databaseCpu !== null ? `, PostgreSQL ${cores(databaseCpu)}` : '';
  return `mean cores busy — served ${cores(serverCpu)}${database}, load generator ${cores(rig.generatorSeconds)}, provider ${cores(rig.providerSeconds)}, total ${cores(total)} of ${cpus().length}`;
}

/** CPU µs per delivered token. */
function cpuPerToken(cpuSeconds: number, tokens: number): number {
  return (cpuSeconds * 1e6) / Math.max(1, tokens);
}

function perToken(cpuSeconds: number | null, tokens: number): string {
  return cpuSeconds === null ? 'n/a' : `${cpuPerToken(cpuSeconds, tokens).toFixed(0)} µs`;
}

/** The ack p50 / p99 of each request but chat:send (printed apart, as the relay has its twin). */
function otherAcks(byEvent: Record<string, LatencySummary>): string {
  const rows = Object.entries(byEvent).filter(([event]) => event !== 'chat:send');
  return rows.length === 0 ? 'n/a' : rows.map(([event, l]) => `${event} ${l.p50.toFixed(0)} / ${l.p99.toFixed(0)} ms`).join(', ');
}
