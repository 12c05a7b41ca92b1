import { describe, it, expect } from 'vitest';
import { orderStatistics, quartileDifferenceResamplingPz } from './quartileBootstrap';
import { seededRandom } from '../../../lib/stats/seededRandom';
import { zScores } from '../../../lib/stats/zScores';
import { percentile } from '../../../lib/stats/percentile';

/** The definition written out plainly: resample within task, recompute Pz, sort fully, take the ends. */
function naive(groups: Map<string, Int32Array>, quality: Float64Array, cost: Float64Array, f: Float64Array, replicates: number, seed: number) {
  const random = seededRandom(seed);
  const tasks = [...groups.values()].filter((g) => g.length >= 2);
  const N = tasks.reduce((n, g) => n + g.length, 0);
  const k = Math.ceil(N / 4);
  const diffs: number[] = [];
  for (let r = 0; r < replicates; r++) {
    const rows: Array<{ i: number; pz: number; j: number }> = [];
    for (const idx of tasks) {
      const draws = Array.from(idx, () => idx[Math.floor(random() * idx.length)]!);
      const zq = zScores(draws.map((i) => quality[i]!));
      const zc = zScores(draws.map((i) => cost[i]!));
      draws.forEach((i, m) => rows.push({ i, pz: zq[m]! - zc[m]!, j: rows.length }));
    }
    rows.sort((a, b) => a.pz - b.pz || a.i - b.i || a.j - b.j);
    const avg = (part: typeof rows) => {
      const v = part.map((x) => f[x.i]!).filter((x) => !Number.isNaN(x));
      return v.reduce((s, x) => s + x, 0) / v.length;
    };
    const d = avg(rows.slice(N - k)) - avg(rows.slice(0, k));
    if (Number.isFinite(d)) diffs.push(d);
  }
  return { low: percentile(diffs, 2.5), high: percentile(diffs, 97.5), replicates: diffs.length };
}

describe('quartileDifferenceResamplingPz', () => {
  it('equals the plain definition (full sort, ties by session then draw) on data with many ties', () => {
    const random = seededRandom(5);
    const n = 90;
    const tasks = Array.from({ length: n }, (_, i) => `t${i % 3}`);
    const quality = Float64Array.from({ length: n }, () => 1 + Math.floor(random() * 5));
    const cost = Float64Array.from({ length: n }, () => 100 * (1 + Math.floor(random() * 4)));
    const feature = Float64Array.from({ length: n }, (_, i) => (i % 7 === 0 ? NaN : random()));
    const groups = new Map<string, Int32Array>();
    for (const t of ['t0', 't1', 't2']) groups.set(t, Int32Array.from(tasks.flatMap((x, i) => (x === t ? [i] : []))));
    const fast = quartileDifferenceResamplingPz(groups, quality, cost, [feature], { replicates: 300, seed: 11 })[0]!;
    const slow = naive(groups, quality, cost, feature, 300, 11);
    expect(fast.replicates).toBe(slow.replicates);
    expect(fast.low).toBeCloseTo(slow.low, 12);
    expect(fast.high).toBeCloseTo(slow.high, 12);
    expect(fast.low).toBeLessThan(fast.high);
  });

  it('equals the plain definition on continuous data large enough for the bucketed selection, several features at once', () => {
    const random = seededRandom(8);
    const n = 2400;
    const tasks = Array.from({ length: n }, (_, i) => `t${i % 4}`);
    const quality = Float64Array.from({ length: n }, () => random() * 10);
    const cost = Float64Array.from({ length: n }, () => Math.exp(3 * random()));
    const f1 = Float64Array.from({ length: n }, (_, i) => (i % 11 === 0 ? NaN : random()));
    const f2 = Float64Array.from({ length: n }, () => Math.floor(random() * 3));
    const groups = new Map<string, Int32Array>();
    for (const t of ['t0', 't1', 't2', 't3']) groups.set(t, Int32Array.from(tasks.flatMap((x, i) => (x === t ? [i] : []))));
    const fast = quartileDifferenceResamplingPz(groups, quality, cost, [f1, f2], { replicates: 60, seed: 3 });
    [f1, f2].forEach((f, col) => {
      const slow = naive(groups, quality, cost, f, 60, 3);
      expect(fast[col]!.replicates).toBe(slow.replicates);
      expect(fast[col]!.low).toBeCloseTo(slow.low, 12);
      expect(fast[col]!.high).toBeCloseTo(slow.high, 12);
    });
  });
});

describe('orderStatistics', () => {
  it('gives the values a full sort puts at the two positions (ties, skew, one bucket or two)', () => {
    const random = seededRandom(21);
    for (const make of [() => Math.floor(random() * 5), () => Math.exp(8 * random()), () => random()]) {
      const v = Float64Array.from({ length: 500 }, make);
      const sorted = Array.from(v).sort((x, y) => x - y);
      for (const [a, b] of [[0, 499], [124, 375], [200, 201], [250, 250]] as const) {
        const got = orderStatistics(v, a, b, sorted[0]!, sorted[499]!, new Int32Array(62), new Float64Array(500));
        expect(got).toEqual([sorted[a], sorted[b]]);
      }
    }
  });
});
