import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadDataset } from '../../research/analysis/input/dataset';
import { analyzeDataset, DEFAULT_OPTIONS } from '../../research/analysis/summary';
import { compareExpected } from './support/compareExpected';
import { holmAdjust } from '../../lib/stats/adjustP';
import type { MetricBlock } from '../../research/analysis/conditions/conditionSection';

// Reference: `python3 tests/fixtures/analysis-reference/conditions_ref.py heldout-seed<N>` — per condition
// n/np.mean/np.median/np.std(ddof=1); scipy.stats.mannwhitneyu(a, b, alternative='two-sided', method='auto');
// Cliff's δ = np.sign(np.subtract.outer(a, b)).mean(); Cohen's d (pooled SD); the stratified difference
// Σ wₜdₜ/Σ wₜ; scipy.stats.chi2_contingency(t, correction=False) or R fisher.test(t) for the quadrant tables.
describe.each([2, 3])('condition comparison on held-out seed %i against scipy / R', (seed) => {
  const dir = fileURLToPath(new URL(`../fixtures/analysis-reference/heldout-seed${seed}/`, import.meta.url));
  const expected = JSON.parse(readFileSync(`${dir}/conditions_expected.json`, 'utf8')) as Record<string, unknown>;
  const summary = analyzeDataset(loadDataset(dir), { ...DEFAULT_OPTIONS, bootstrapReplicates: 200 }).summary;
  const c = summary.conditions;

  it('matches every per-task number (descriptives, U, p, δ, d, quadrant tests)', () => {
    expect(compareExpected(expected.tasks, c.tasks, '$.tasks').slice(0, 20)).toEqual([]);
  });
  it('matches the pooled (stratified) differences, U, δ, d and the pooled quadrant test', () => {
    expect(compareExpected(expected.pooled, c.pooled, '$.pooled').slice(0, 20)).toEqual([]);
  });
  it('reports tiny groups and sessions without a usable value instead of dropping them silently', () => {
    expect(c.names).toEqual(['baseline', 'probe_first']);
    const pair = c.tasks.pair!.pz as MetricBlock;
    expect(pair.comparisons).toEqual([]);
    expect(pair.too_few).toEqual([{ condition: 'baseline', n: 1 }, { condition: 'probe_first', n: 1 }]);
    // the solo task's session has no Pz: n = 0 there, and its quality is still described
    expect((c.tasks.solo!.pz as MetricBlock).probe_first!.n).toBe(0);
    expect((c.tasks.solo!.quality as MetricBlock).probe_first!.n).toBe(1);
    expect(c.pooled.tasks_used.pz).not.toContain('pair');
  });
  it('states the method, gives seeded intervals around the difference and Holm within each family', () => {
    const alpha = (c.tasks.alpha!.pz as MetricBlock).comparisons[0]!;
    expect(alpha.method).toBe('asymptotic');
    expect(alpha.ci95![0]).toBeLessThan(alpha.diff);
    expect(alpha.ci95![1]).toBeGreaterThan(alpha.diff);
    const pooled = (c.pooled.pz as MetricBlock).comparisons[0]!;
    expect(pooled.method).toBe('stratified_permutation');
    expect(pooled.p).toBe(pooled.p_permutation);
    expect(pooled.p).toBeGreaterThan(0);
    // the outcomes family: every quality/cost/pz comparison and omnibus, per task and pooled
    const family = [...Object.values(c.tasks), c.pooled].flatMap((t) => ['quality', 'cost', 'pz'].flatMap((m) => (t[m] as MetricBlock).comparisons));
    const adjusted = holmAdjust(family.map((x) => x.p));
    family.forEach((x, i) => expect(x.p_holm).toBe(adjusted[i]));
    expect(family.every((x) => x.p === null || x.p_holm! >= x.p)).toBe(true);
    // same seed → same numbers
    const again = analyzeDataset(loadDataset(dir), { ...DEFAULT_OPTIONS, bootstrapReplicates: 200 }).summary.conditions;
    expect(again.pooled.pz).toEqual(c.pooled.pz);
  });
});
