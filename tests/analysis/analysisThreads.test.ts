import { afterAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { loadDataset } from '../../research/analysis/input/dataset';
import { analyzeDataset, DEFAULT_OPTIONS } from '../../research/analysis/summary';
import { configureReplicateThreads, lastThreadedRun, replicateThreads, stopReplicateWorkers } from '../../research/analysis/parallel/runReplicates';
import { generateSyntheticDataset } from '../../research/analysis/synthetic/generateDataset';

const initial = replicateThreads();
afterAll(() => {
  configureReplicateThreads(initial);
  stopReplicateWorkers();
});

// The whole summary (every bootstrap, permutation p and interval) must not depend on how many threads
// computed it: replicates are split, never the random stream.
describe('analysis on worker threads', () => {
  const heldout = fileURLToPath(new URL('../fixtures/analysis-reference/heldout-seed2/', import.meta.url));
  const synthetic = join(mkdtempSync(join(tmpdir(), 'tandem-threads-')), 'data');
  generateSyntheticDataset(synthetic, {
    sessions: 1500, turnsPerSession: 12, tasks: ['a', 'b', 'c'], likertItems: ['ease', 'trust'], seed: 3, missingQuality: 0.05, missingLikert: 0.1,
  });
  for (const [name, dir] of [['held-out fixture', heldout], ['synthetic study with two conditions', synthetic]] as const) {
    it(`gives the same summary.json on one thread and on three (${name})`, () => {
      const data = loadDataset(dir);
      const options = { ...DEFAULT_OPTIONS, bootstrapReplicates: 200 };
      configureReplicateThreads({ threads: 1 });
      const alone = JSON.stringify(analyzeDataset(data, options).summary);
      configureReplicateThreads({ threads: 3, minDraws: 0 });
      const threaded = JSON.stringify(analyzeDataset(data, options).summary);
      expect(lastThreadedRun()).not.toBeNull();
      expect(threaded).toBe(alone);
      expect(JSON.parse(alone).bootstrap.replicates).toBe(200);
    }, 120_000);
  }
});
