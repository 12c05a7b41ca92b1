/**
 * `npm run bench -- --groups 3 --participants 300 --agents 1`: the group mode of the load benchmark. One Tandem
 * server (child process, SQLite, or PostgreSQL with --database postgres) runs a generated copy of
 * studies/group-demo.yaml whose groups hold exactly --groups people (lobby: arrival, release on timeout) and --agents
 * AI agents each, answering through the same timed OpenAI-compatible provider as the other scenarios (every third
 * person's message, as the demo). The simulated people (research/simulation/groupSimulation.ts) join, are seated,
 * chat --turns messages each, edit the shared plan, and submit; the bench reports the fan-out of every person's
 * message to every other member (send → receipt, p50/p99), the people's messages that never reached a member
 * (must be 0), and every stored room message — agents' replies included — that a member still there never
 * received (must be 0).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ServerChild } from '../tests/harness/serverChild';
import { cpuSecondsOf } from '../tests/harness/childProcess';
import { runGroupSimulation } from '../research/simulation/groupSimulation';
import { formatSummary, summarizeLatencies } from '../research/simulation/latencyStats';

export interface GroupBenchOptions {
  groupSize: number;
  agents: number;
  participants: number;
  turns: number;
  thinkMs: number;
  providerBaseURL: string;
  databaseUrl?: string;
  timeoutMs: number;
  onStop: (stop: () => Promise<void>) => void;
}

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
export const GROUP_BENCH_STUDY = 'group-bench';

/** group-demo.yaml with groups of exactly `size` people and `agents` agents (Facilitator, Agent 2, …). */
export function groupBenchStudy(size: number, agents: number): string {
  let text = readFileSync(path.join(ROOT, 'studies', 'group-demo.yaml'), 'utf8');
  const replace = (from: string | RegExp, to: string) => {
    const next = text.replace(from, to);
    if (next === text) throw new Error(`group bench study: ${String(from)} not in studies/group-demo.yaml`);
    text = next;
  };
  replace('size: { min: 2, max: 3 }', `size: { min: ${size}, max: ${size} }`);
  replace('on_timeout: start_smaller', 'on_timeout: release');
  const block = /(    agents:\n)(      - name: Facilitator\n(?:        .*\n|          .*\n)+)/;
  const match = block.exec(text);
  if (!match) throw new Error('group bench study: no agents block in studies/group-demo.yaml');
  const one = match[2]!;
  const all = Array.from({ length: agents }, (_, i) => (i === 0 ? one : one.replace('- name: Facilitator', `- name: Agent ${i + 1}`))).join('');
  text = text.replace(block, agents === 0 ? '' : `$1${all}`);
  return text;
}

export async function runGroupBench(o: GroupBenchOptions): Promise<boolean> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tandem-group-bench-'));
  const studiesDir = path.join(dir, 'studies');
  cpSync(path.join(ROOT, 'studies'), studiesDir, { recursive: true });
  writeFileSync(path.join(studiesDir, `${GROUP_BENCH_STUDY}.yaml`), groupBenchStudy(o.groupSize, o.agents));
  const server = new ServerChild({
    providerBaseURL: o.providerBaseURL,
    databaseUrl: o.databaseUrl,
    env: { STUDIES_DIR: studiesDir, REPLY_TIMEOUT_MS: '120000', PROVIDER_TIMEOUT_MS: '30000' },
    readyTimeoutMs: 120_000,
  });
  o.onStop(() => server.dispose());
  try {
    await server.start();
    const cpuAtStart = cpuSecondsOf(server.pid);
    const startedAt = performance.now();
    const s = await runGroupSimulation({
      url: server.url,
      study: GROUP_BENCH_STUDY,
      participants: o.participants,
      runId: `bench${process.pid}`,
      turns: o.turns,
      dropout: 0,
      seed: 1,
      thinkMs: o.thinkMs,
      timeoutMs: o.timeoutMs,
    });
    const wallS = (performance.now() - startedAt) / 1000;
    const cpu = cpuSecondsOf(server.pid);
    const fanout = summarizeLatencies(s.fanoutMs);
    console.log(`groups (Tandem server, ${o.databaseUrl ? 'PostgreSQL' : 'SQLite'}, groups of ${o.groupSize} people + ${o.agents} agent(s)):`);
    console.log(`  seated ${s.grouped}/${s.participants} in ${s.groups} groups, released ${s.released}, completed ${s.completed}, errors ${s.errors.length}${s.errors.length ? ` (${s.errors.slice(0, 3).join(' | ')})` : ''}, wall ${wallS.toFixed(1)} s`);
    console.log(`  people's messages: ${s.messagesSent} sent, ${s.deliveriesExpected - s.deliveriesLost}/${s.deliveriesExpected} deliveries to the other members, ${s.deliveriesLost} lost`);
    console.log(`  fan-out (send → each member's receipt): ${formatSummary(fanout)}`);
    console.log(`  every stored room message (agents' replies included) × member: ${s.roomDeliveriesExpected - s.roomDeliveriesMissing}/${s.roomDeliveriesExpected} received live, ${s.roomDeliveriesMissing} missing`);
    console.log(`  server process CPU: ${cpu === null || cpuAtStart === null ? 'n/a' : `${(cpu - cpuAtStart).toFixed(1)} s (${((cpu - cpuAtStart) / wallS).toFixed(2)} cores)`}`);
    return s.errors.length === 0 && s.deliveriesLost === 0 && s.roomDeliveriesMissing === 0 && s.grouped === s.participants && s.completed === s.participants;
  } finally {
    await server.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}
