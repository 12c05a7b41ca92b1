/**
 * The planned tests against scipy 1.10 (values below from the quoted calls), every direction:
 *   x = [3.1, 4.5, 2.2, 5.0, 4.1, 3.9]; y = [1.0, 2.5, 3.0, 1.7, 2.8, 0.9, 2.1]        (no ties, small: exact)
 *   x2 = [3, 4, 2, 5, 4, 3, 4, 5, 4, 3]; y2 = [1, 2, 3, 2, 2, 1, 2, 4, 3, 2]           (ties: asymptotic)
 */
import { describe, expect, it } from 'vitest';
import { plannedTest } from './plannedTest';

const x = Float64Array.from([3.1, 4.5, 2.2, 5.0, 4.1, 3.9]);
const y = Float64Array.from([1.0, 2.5, 3.0, 1.7, 2.8, 0.9, 2.1]);
const x2 = Float64Array.from([3, 4, 2, 5, 4, 3, 4, 5, 4, 3]);
const y2 = Float64Array.from([1, 2, 3, 2, 2, 1, 2, 4, 3, 2]);

describe('planned test', () => {
  it.each([
    // scipy.stats.mannwhitneyu(x, y, alternative=alt, method='auto')
    ['greater', 0.004079254079254079],
    ['less', 0.9976689976689977],
    ['two-sided', 0.008158508158508158],
  ] as const)('Mann–Whitney exact, %s, equals scipy', (alt, p) => {
    const r = plannedTest('mann_whitney', alt, x, y)!;
    expect(r).toMatchObject({ statistic: 39, method: 'exact' });
    expect(r.p).toBeCloseTo(p, 12);
  });

  it.each([
    // scipy.stats.mannwhitneyu(x2, y2, alternative=alt, method='auto')
    ['greater', 0.002525882151682241],
    ['less', 0.9980216620835636],
    ['two-sided', 0.005051764303364482],
  ] as const)('Mann–Whitney with ties (asymptotic), %s, equals scipy', (alt, p) => {
    const r = plannedTest('mann_whitney', alt, x2, y2)!;
    expect(r).toMatchObject({ statistic: 86.5, method: 'asymptotic' });
    expect(r.p).toBeCloseTo(p, 12);
  });

  it.each([
    // scipy.stats.ttest_ind(x, y, equal_var=False, alternative=alt)
    ['greater', 0.003109832110676374],
    ['less', 0.9968901678893236],
    ['two-sided', 0.006219664221352748],
  ] as const)('Welch t, %s, equals scipy', (alt, p) => {
    const r = plannedTest('welch_t', alt, x, y)!;
    expect(r.statistic).toBeCloseTo(3.4683862198862783, 12);
    // Welch–Satterthwaite df: (va+vb)**2/(va**2/(n1-1)+vb**2/(n2-1)) with va = np.var(x, ddof=1)/len(x) …
    expect(r.df).toBeCloseTo(9.800879110321139, 10);
    expect(r.p).toBeCloseTo(p, 10);
  });

  it('is null when a condition has no values', () => {
    expect(plannedTest('mann_whitney', 'greater', x, new Float64Array())).toBeNull();
    expect(plannedTest('welch_t', 'greater', Float64Array.from([1]), y)).toBeNull();
  });
});

describe('the plan schema', () => {
  it('knows the cost definitions the analysis knows', async () => {
    const { PLAN_COST_DEFINITIONS } = await import('../../../common/preregistration');
    const { COST_DEFINITIONS } = await import('../productivity/costDefinitions');
    expect([...PLAN_COST_DEFINITIONS]).toEqual([...COST_DEFINITIONS]);
  });
});
