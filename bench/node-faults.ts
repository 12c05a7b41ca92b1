/**
 * `npm run fault:node -- --nodes 3 --participants 300` — a Tandem cluster (bench/cluster/: PostgreSQL, Redis,
 * HAProxy from deploy/haproxy.cfg, N nodes) under participant traffic through HAProxy; one node at a time is
 * SIGKILLed repeatedly and restarted, Redis restarted once and PostgreSQL once (immediate shutdown). Then: every
 * participant completed, 0 acknowledged messages lost or duplicated, every reply cut by a kill stored interrupted
 * once and retried to completion, every session resumes. Prints PASS/FAIL like bench/crash.ts.
 * Options: --nodes 3 --participants 300 --turns 3 --kills 6 --kill-every-ms 4000 --adapter redis|postgres
 *          --study travel-planning --log <file.jsonl>
 * A fault comes about --kill-every-ms after the one before (jittered ×0.6–1.4), sooner when the traffic runs out
 * first: fault i of n at the latest once i/(n + 1) of the messages are acknowledged, so all of them land during it.
 * Group mode, `--groups N` (bench/cluster/groupFaultRun.ts): N groups of three in studies/group-demo.yaml chat and
 * edit the shared plan through HAProxy while one node at a time is SIGKILLed `kills` times mid-group and restarted;
 * PASS when no acknowledged message or shared-plan edit is lost (store, and each member's view after a reload).
 * Bounded: at most `kills` kills; each participant gives up after 5 minutes. Loopback only.
 */
import { loadavg } from 'node:os';
import { z } from 'zod';
import { faultRunPassed, formatFaultOutcome } from '../tests/harness/faultTraffic';
import { JsonlLog } from '../research/simulation/jsonlLog';
import { formatSummary, summarizeLatencies } from '../research/simulation/latencyStats';
import { runNodeFaultScenario } from './cluster/nodeFaultRun';
import { formatGroupFaultOutcome, groupFaultRunPassed, runGroupNodeFaultScenario } from './cluster/groupFaultRun';
import { benchFlags } from './benchFlags';

const Flags = z.object({
  nodes: z.coerce.number().int().min(2).max(16).default(3),
  participants: z.coerce.number().int().min(1).max(1000).default(300),
  turns: z.coerce.number().int().min(1).max(50).default(3),
  kills: z.coerce.number().int().min(1).max(100).default(6),
  'kill-every-ms': z.coerce.number().int().min(500).max(120_000).default(4000),
  adapter: z.enum(['redis', 'postgres']).default('redis'),
  study: z.string().default('travel-planning'),
  log: z.string().optional(),
  groups: z.coerce.number().int().min(1).max(100).optional(),
});
const f = benchFlags('fault:node', {
  nodes: { type: 'string' }, participants: { type: 'string' }, turns: { type: 'string' }, kills: { type: 'string' },
  'kill-every-ms': { type: 'string' }, adapter: { type: 'string' }, study: { type: 'string' }, log: { type: 'string' },
  groups: { type: 'string' },
}, Flags);
if (f.groups !== undefined) {
  console.log(`fault:node --groups: ${f.nodes} nodes (adapter ${f.adapter}), ${f.groups} groups of 3, ${f.kills} node SIGKILLs about every ${f['kill-every-ms']} ms; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const t0 = performance.now();
  const r = await runGroupNodeFaultScenario({ nodes: f.nodes, groups: f.groups, kills: f.kills, killEveryMs: f['kill-every-ms'], adapter: f.adapter, onEvent: (line) => console.log(`  ${line}`) });
  console.log(`node restart (SIGKILL → /healthz 200): ${formatSummary(summarizeLatencies(r.restartMs))}`);
  for (const line of formatGroupFaultOutcome(r)) console.log(line);
  console.log(`wall ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const passed = groupFaultRunPassed(r) && r.kills === f.kills;
  console.log(passed ? 'PASS' : 'FAIL');
  process.exit(passed ? 0 : 1);
}
const log = f.log ? new JsonlLog(f.log) : undefined;
console.log(`fault:node: ${f.nodes} nodes (adapter ${f.adapter}), ${f.participants} participants × ${f.turns} turns, ${f.kills} node SIGKILLs about every ${f['kill-every-ms']} ms, Redis and PostgreSQL restarted once; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
const t0 = performance.now();
const result = await runNodeFaultScenario({
  nodes: f.nodes,
  participants: f.participants,
  turns: f.turns,
  kills: f.kills,
  killEveryMs: f['kill-every-ms'],
  studyId: f.study,
  adapter: f.adapter,
  sessionDeadlineMs: 300_000,
  ...(log ? { log } : {}),
  onEvent: (line) => console.log(`  ${line}`),
});
await log?.close();
console.log(`node kills: ${result.kills}, node restart (SIGKILL → /healthz 200): ${formatSummary(summarizeLatencies(result.restartMs))}; Redis restarts ${result.redisRestarts}, PostgreSQL restarts ${result.postgresRestarts}`);
for (const line of formatFaultOutcome(result)) console.log(line);
console.log(`wall ${((performance.now() - t0) / 1000).toFixed(0)} s; load average at end ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
const faultsDone = result.kills === f.kills && result.redisRestarts === 1 && result.postgresRestarts === 1;
if (!faultsDone) console.log('the traffic ended before every planned fault happened: raise --turns or lower --kill-every-ms');
const ok = faultRunPassed(result) && faultsDone;
console.log(ok ? 'PASS' : 'FAIL');
process.exitCode = ok ? 0 : 1;
