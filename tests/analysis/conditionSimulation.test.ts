import { describe, it, expect } from 'vitest';
import { analyzeDataset, DEFAULT_OPTIONS } from '../../research/analysis/summary';
import type { MetricBlock } from '../../research/analysis/conditions/conditionSection';
import { conditionDataset } from './support/conditionDataset';

const options = { ...DEFAULT_OPTIONS, bootstrapReplicates: 199 };
const pooled = (summary: ReturnType<typeof analyzeDataset>['summary'], metric: string) => (summary.conditions.pooled[metric] as MetricBlock).comparisons[0]!;

describe('condition comparison on simulated studies', () => {
  it('detects a planted effect (clarify-first: +1 quality point, 20% fewer agent tokens)', () => {
    // 999 permutations: the smallest permutation p is 1/(B + 1), and Holm multiplies it by up to 12
    const summary = analyzeDataset(conditionDataset(7, { effect: 1, perTask: 40 }), { ...options, bootstrapReplicates: 999 }).summary;
    const pz = pooled(summary, 'pz');
    // a = baseline, b = clarify-first: baseline is worse
    expect([pz.a, pz.b]).toEqual(['baseline', 'clarify-first']);
    expect(pz.diff).toBeLessThan(0);
    expect(pz.ci95![1]).toBeLessThan(0);
    expect(pz.p_holm!).toBeLessThan(0.05);
    expect(pooled(summary, 'quality').p_holm!).toBeLessThan(0.05);
    expect(pooled(summary, 'cost').diff).toBeGreaterThan(0);
    expect(pz.cliffs_delta!).toBeLessThan(-0.3);
  });

  // 200 studies without any effect: the pooled permutation p should be uniform on (0, 1], and Holm should
  // keep the chance of any false discovery in the outcome family near (at most) 5%.
  const runs = Array.from({ length: 200 }, (_, k) => analyzeDataset(conditionDataset(1000 + k, { effect: 0, perTask: 16 }), options).summary);

  it('gives roughly uniform p-values without an effect (pooled permutation and per-task Mann–Whitney)', () => {
    const p = runs.map((s) => pooled(s, 'pz').p!).sort((a, b) => a - b);
    const below = (x: number) => p.filter((v) => v < x).length / p.length;
    expect(below(0.05)).toBeGreaterThan(0.01);
    expect(below(0.05)).toBeLessThan(0.1);
    // Kolmogorov–Smirnov distance to U(0,1); 0.096 is the 5% critical value for n = 200, 0.13 the 0.1% one
    const ks = Math.max(...p.map((v, i) => Math.max(Math.abs((i + 1) / p.length - v), Math.abs(v - i / p.length))));
    expect(ks).toBeLessThan(0.13);
    const perTask = runs.flatMap((s) => Object.values(s.conditions.tasks).map((t) => (t.pz as MetricBlock).comparisons[0]!.p!));
    expect(perTask.filter((v) => v < 0.05).length / perTask.length).toBeLessThan(0.08);
  });

  it('keeps false discoveries after Holm at or below the nominal 5% per study', () => {
    const anyDiscovery = runs.filter((s) =>
      [...Object.values(s.conditions.tasks), s.conditions.pooled].some((t) =>
        ['quality', 'cost', 'pz'].some((m) => (t[m] as MetricBlock).comparisons.some((x) => x.p_holm !== null && x.p_holm < 0.05)),
      ),
    ).length;
    expect(anyDiscovery / runs.length).toBeLessThanOrEqual(0.07);
    // and without adjustment there would be many more (12 tests per study)
    const raw = runs.filter((s) => Object.values(s.conditions.tasks).some((t) => (t.pz as MetricBlock).comparisons.some((x) => x.p! < 0.05))).length;
    expect(raw).toBeGreaterThan(anyDiscovery);
  });
});
