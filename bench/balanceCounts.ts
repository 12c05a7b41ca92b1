/**
 * `npm run bench:balance` — what a join's balanced assignment costs as a study grows: a fresh store (SQLite in a temp
 * folder, or --database postgres on a throwaway cluster) gets one study with N non-pilot sessions over 3 conditions and
 * 2 tasks, four in five of them consented, and the join's two counts (SessionsRepo.countByCondition and countByTask with
 * the 5-minute unconsented slot, as server/services/join.ts asks them) are timed 40 times; prints the median and the
 * counts. Run it on two trees side by side to compare them.
 *
 *   npm run bench:balance -- [--sessions 50000] [--database sqlite|postgres]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { openStore } from '../lib/storage';
import { balanceCountsUnconsentedSince } from '../server/services/assignment';
import { startPostgresCluster, type PostgresCluster } from '../tests/support/postgresCluster';
import { benchFlags } from './benchFlags';

const Flags = z.object({
  sessions: z.coerce.number().int().min(1).max(1_000_000).default(50_000),
  database: z.enum(['sqlite', 'postgres']).default('sqlite'),
});
const f = benchFlags('bench:balance', { sessions: { type: 'string' }, database: { type: 'string' } }, Flags);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-bench-balance-'));
let cluster: PostgresCluster | undefined;
try {
  if (f.database === 'postgres') cluster = await startPostgresCluster();
  const store = await openStore({ dataDir, databaseUrl: cluster?.url });
  await store.studies.upsertLoaded('study', 'Balance', 'hash', 'live', 1);
  const now = Date.now();
  const conditions = ['c1', 'c2', 'c3'];
  const tasks = ['t1', 't2'];
  for (let from = 0; from < f.sessions; from += 500) {
    await store.transaction(async (tx) => {
      for (let i = from; i < Math.min(f.sessions, from + 500); i++) {
        const id = crypto.randomUUID();
        const createdAt = now - 10_000_000 + i;
        await tx.sessions.insert({ id, studyId: 'study', taskId: tasks[i % 2]!, conditionId: conditions[i % 3]!, isPilot: false, createdAt });
        if (i % 5 !== 0) await tx.sessions.update(id, { step: 'instructions', consentedAt: createdAt }, createdAt);
      }
    });
  }
  const since = balanceCountsUnconsentedSince(now);
  const ms: number[] = [];
  for (let k = 0; k < 40; k++) {
    const start = process.hrtime.bigint();
    await store.sessions.countByCondition('study', since);
    await store.sessions.countByTask('study', since);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const counts = Object.fromEntries(await store.sessions.countByCondition('study', since));
  console.log(`bench:balance: ${f.database}, ${f.sessions} sessions: a join's two balance counts take ${ms[20]!.toFixed(3)} ms (median of 40, min ${ms[0]!.toFixed(3)}); per condition ${JSON.stringify(counts)}`);
  await store.close();
} finally {
  await cluster?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
