import { afterAll, describe, expect, it } from 'vitest';
import { configureReplicateThreads, lastThreadedRun, replicateThreads, stopReplicateWorkers, threadsFromEnvironment } from './runReplicates';
import { quartileDifferenceResamplingPz } from '../features/quartileBootstrap';
import { seededRandom } from '../../../lib/stats/seededRandom';
import { resampledMeansShared } from '../conditions/resampledMeans';
import { stratifiedPermutationP, stratifiedPermutationPs } from '../conditions/stratified';

const initial = replicateThreads();
afterAll(() => {
  configureReplicateThreads(initial);
  stopReplicateWorkers();
});

function dataset(n: number, seed: number) {
  const random = seededRandom(seed);
  const quality = Float64Array.from({ length: n }, () => 1 + Math.floor(random() * 5));
  const cost = Float64Array.from({ length: n }, () => 10 + Math.floor(random() * 400) / 2);
  const features = [0, 1, 2].map((k) => Float64Array.from({ length: n }, (_, i) => (i % (5 + k) === 0 ? NaN : random())));
  const groups = new Map<string, Int32Array>();
  for (let t = 0; t < 4; t++) groups.set(`t${t}`, Int32Array.from({ length: Math.ceil((n - t) / 4) }, (_, j) => 4 * j + t));
  return { quality, cost, features, groups };
}

describe('runReplicates', () => {
  it('gives the same intervals on one thread and split over worker threads (chunks claimed in any order)', async () => {
    const { quality, cost, features, groups } = dataset(3000, 4);
    const options = { replicates: 97, seed: 12 };
    configureReplicateThreads({ threads: 1 });
    const alone = quartileDifferenceResamplingPz(groups, quality, cost, features, options);
    for (const threads of [2, 3]) {
      configureReplicateThreads({ threads, minDraws: 0 });
      expect(quartileDifferenceResamplingPz(groups, quality, cost, features, options)).toEqual(alone);
      expect(lastThreadedRun()?.units).toBe(options.replicates);
    }
    // another seed and size reuses the running workers
    const other = { replicates: 400, seed: 3 };
    // and once they are running they take a share (the calling thread does not do every chunk)
    let threaded = quartileDifferenceResamplingPz(groups, quality, cost, features, other);
    for (let attempt = 0; attempt < 100 && lastThreadedRun()!.byCallingThread === other.replicates; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100)); // workers still starting
      threaded = quartileDifferenceResamplingPz(groups, quality, cost, features, other);
    }
    expect(lastThreadedRun()!.byCallingThread).toBeLessThan(other.replicates);
    configureReplicateThreads({ threads: 1 });
    expect(threaded).toEqual(quartileDifferenceResamplingPz(groups, quality, cost, features, other));
    expect(alone.every((ci) => ci !== null && ci.low < ci.high)).toBe(true);
  }, 60_000);

  it('gives the same condition resamples on one thread and on three (empty groups kept apart)', () => {
    const data = seededRandom(9);
    const sizes = [300, 0, 41, 2, 512];
    const metrics = [0, 1].map(() => sizes.map((n) => Float64Array.from({ length: n }, () => Math.round(data() * 1000) / 7)));
    configureReplicateThreads({ threads: 1 });
    const alone = resampledMeansShared(metrics, 150, 77);
    configureReplicateThreads({ threads: 3, minDraws: 0 });
    expect(resampledMeansShared(metrics, 150, 77)).toEqual(alone);
    expect(lastThreadedRun()?.units).toBe(sizes.length * 150);
    expect(alone[0]![1]).toBeNull();
  });

  it('gives the stratified permutation p of one thread, stratum by stratum on three', () => {
    const data = seededRandom(31);
    const metric = (scale: number) =>
      [[40, 60], [9, 30], [2, 2], [120, 80]].map(([na, nb], k) => ({
        task: `t${k}`,
        a: Float64Array.from({ length: na! }, () => Math.floor(data() * 7) * scale),
        b: Float64Array.from({ length: nb! }, () => (1 + Math.floor(data() * 7)) * scale),
      }));
    const metrics = [metric(1), metric(0.25)];
    configureReplicateThreads({ threads: 3, minDraws: 0 });
    const threaded = stratifiedPermutationPs(metrics, 499, 5);
    expect(lastThreadedRun()?.units).toBe(4);
    configureReplicateThreads({ threads: 1 });
    expect(threaded).toEqual(stratifiedPermutationPs(metrics, 499, 5));
    metrics.forEach((strata, m) => expect(threaded[m]).toBe(stratifiedPermutationP(strata, 499, 5)));
  });

  it('reads ANALYSIS_THREADS and names it when it is not a thread count', () => {
    expect(threadsFromEnvironment('3')).toBe(3);
    expect(threadsFromEnvironment(undefined)).toBeGreaterThanOrEqual(1);
    expect(threadsFromEnvironment(' ')).toBe(threadsFromEnvironment(undefined));
    expect(() => threadsFromEnvironment('zero')).toThrow(/ANALYSIS_THREADS: .*"zero"/);
    expect(() => threadsFromEnvironment('0')).toThrow(/ANALYSIS_THREADS/);
    expect(() => threadsFromEnvironment('2.5')).toThrow(/ANALYSIS_THREADS/);
  });
});
