/**
 * `npm run fuzz` — fast-check fuzzing of every participant socket event and the HTTP bodies of
 * POST /api/join and POST /api/session/upload against a server in a child process.
 * Properties: zero crashes, every malformed input answered with an error envelope (never "internal"),
 * no row written. Options: --runs 2000 (socket cases; HTTP cases get a quarter each) --seed N
 * Bounded by the number of runs; each case waits at most 5 s. Loopback only.
 */
import { z } from 'zod';
import { runFuzz } from '../tests/harness/fuzzRun';
import { benchFlags } from './benchFlags';

const Flags = z.object({
  runs: z.coerce.number().int().min(1).max(100_000).default(2000),
  seed: z.coerce.number().int().optional(),
});
const { runs, seed } = benchFlags('fuzz', { runs: { type: 'string' }, seed: { type: 'string' } }, Flags);
const started = performance.now();
const report = await runFuzz({
  socketRuns: runs,
  joinRuns: Math.ceil(runs / 4),
  uploadRuns: Math.ceil(runs / 4),
  ...(seed !== undefined ? { seed } : {}),
  onProgress: (what, n) => {
    if (n % 100 === 0) process.stderr.write(`\r  ${what}: ${n}   `);
  },
});
process.stderr.write('\n');
console.log(`fuzz: seed ${report.seed}; cases: socket ${report.casesRun.socket}, handshake ${report.casesRun.handshake}, join ${report.casesRun.join}, upload ${report.casesRun.upload} (skipped ${report.casesRun.skippedValid} generated payloads the schema accepts) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(`server crashed: ${report.crashed ? 'YES' : 'no'}; socket disconnects during the run: ${report.reconnects}`);
console.log(`rows written: ${report.rowChanges.length === 0 ? 'none' : report.rowChanges.join(', ')}`);
console.log(`violations: ${report.violations.length}`);
for (const v of report.violations.slice(0, 20)) console.log(`  - ${v}`);
const ok = !report.crashed && report.violations.length === 0 && report.rowChanges.length === 0;
console.log(ok ? 'PASS' : 'FAIL');
process.exitCode = ok ? 0 : 1;
