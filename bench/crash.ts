/**
 * `npm run fault:crash` — SIGKILL the server repeatedly during a load run and restart it on the same
 * DATA_DIR; then check that every acknowledged message is stored exactly once, that unacknowledged ones
 * were resent and stored once, that replies cut mid-stream are marked, and that every session resumes.
 * Options: --participants 40 --turns 5 --kills 6 --kill-every-ms 2500 --study travel-planning --log <file> --database sqlite|postgres
 * (postgres: the server runs on a throwaway local cluster, tests/support/postgresCluster.ts, stopped at the end).
 * A kill comes about --kill-every-ms after the one before, sooner when the traffic runs out first: kill i of n at the
 * latest once i/(n + 1) of the messages are acknowledged, so all of them land during it.
 * Bounded: at most `kills` kills; each participant gives up after 3 minutes. Loopback only.
 */
import { z } from 'zod';
import { runCrashScenario } from '../tests/harness/crashRun';
import { faultRunPassed, formatFaultOutcome } from '../tests/harness/faultTraffic';
import { JsonlLog } from '../research/simulation/jsonlLog';
import { formatSummary, summarizeLatencies } from '../research/simulation/latencyStats';
import { startPostgresCluster } from '../tests/support/postgresCluster';
import { benchFlags } from './benchFlags';

const Flags = z.object({
  participants: z.coerce.number().int().min(1).max(500).default(40),
  turns: z.coerce.number().int().min(1).max(50).default(5),
  kills: z.coerce.number().int().min(1).max(100).default(6),
  'kill-every-ms': z.coerce.number().int().min(200).max(60_000).default(2500),
  study: z.string().default('travel-planning'),
  log: z.string().optional(),
  database: z.enum(['sqlite', 'postgres']).default('sqlite'),
});

const flags = benchFlags('fault:crash', { participants: { type: 'string' }, turns: { type: 'string' }, kills: { type: 'string' }, 'kill-every-ms': { type: 'string' }, study: { type: 'string' }, log: { type: 'string' }, database: { type: 'string' } }, Flags);
const log = flags.log ? new JsonlLog(flags.log) : undefined;
console.log(`fault:crash: ${flags.participants} participants × ${flags.turns} turns, ${flags.kills} SIGKILLs about every ${flags['kill-every-ms']} ms, store ${flags.database}`);
const cluster = flags.database === 'postgres' ? await startPostgresCluster() : undefined;
const result = await runCrashScenario({
  ...(cluster ? { databaseUrl: cluster.url } : {}),
  studyId: flags.study,
  participants: flags.participants,
  turns: flags.turns,
  kills: flags.kills,
  killEveryMs: flags['kill-every-ms'],
  sessionDeadlineMs: 180_000,
  keepDataDir: true,
  ...(log ? { log } : {}),
  onKill: (n, pid) => console.log(`  kill ${n}: SIGKILL pid ${pid}`),
}).finally(() => cluster?.stop());
await log?.close();
console.log(`kills: ${result.kills}, restart time ${formatSummary(summarizeLatencies(result.restartMs))}`);
for (const line of formatFaultOutcome(result)) console.log(line);
console.log(`data dir: ${result.dataDir}`);
const ok = faultRunPassed(result);
console.log(ok ? 'PASS' : 'FAIL');
process.exitCode = ok ? 0 : 1;
