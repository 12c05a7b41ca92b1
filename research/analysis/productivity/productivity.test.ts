import { describe, it, expect } from 'vitest';
import { quadrantOf, withinTaskProductivity } from './withinTaskZ';
import { costSpread } from './costSpread';
import { pzQuartiles } from './quartiles';
import { scoredByTask } from './taskGroups';
import { interactionCost } from './costDefinitions';
import { floatKey } from './rankingAgreement';

describe('quadrantOf', () => {
  it('puts zero on the "≥ 0" side for both axes', () => {
    expect(quadrantOf(0, -0.1)).toBe('productive_success');
    expect(quadrantOf(0, 0)).toBe('costly_success');
    expect(quadrantOf(-0.1, -0.1)).toBe('cheap_failure');
    expect(quadrantOf(-0.1, 0)).toBe('unproductive_failure');
  });
});

describe('withinTaskProductivity', () => {
  it('standardises within task, leaves a lone session without z (null), gives z = 0 for zero variance, skips unscored', () => {
    const tasks = ['a', 'a', 'a', 'solo', 'flat', 'flat', 'a'];
    const quality = Float64Array.from([1, 2, 3, 5, 4, 4, NaN]);
    const cost = Float64Array.from([10, 20, 60, 7, 5, 5, 1]);
    const groups = scoredByTask(tasks, quality);
    expect([...groups.keys()]).toEqual(['a', 'flat', 'solo']);
    const p = withinTaskProductivity(groups, quality, cost);
    // scipy.stats.zscore([1,2,3], ddof=1) -> [-1, 0, 1]; scipy.stats.zscore([10,20,60], ddof=1)[2] -> 1.1338934190276817
    expect(Array.from(p.zQuality.subarray(0, 3))).toEqual([-1, 0, 1]);
    expect(p.zCost[2]).toBeCloseTo(1.1338934190276817, 14);
    // a task's only session: SD undefined with ddof = 1 (scipy.stats.zscore([5], ddof=1) -> [nan])
    expect([p.zQuality[3], p.zCost[3], p.pz[3]]).toEqual([NaN, NaN, NaN]);
    expect([p.pz[4], p.pz[5]]).toEqual([0, 0]);
    expect(p.pz[6]).toBeNaN();
  });
});

describe('costSpread', () => {
  it('orders quality levels, gives max/min, and null ratio for a zero cost', () => {
    const idx = Int32Array.from([0, 1, 2, 3, 4]);
    const spread = costSpread(idx, Float64Array.from([4, 2, 4, 2, 3]), Float64Array.from([70, 0, 1, 5, 9]));
    expect(spread).toEqual([
      // np.percentile([0, 5], [25, 50, 75]) -> [1.25, 2.5, 3.75]
      { quality: 2, n: 2, min: 0, max: 5, ratio: null, q1: 1.25, median: 2.5, q3: 3.75, n_zero: 1, min_positive: 5 },
      { quality: 3, n: 1, min: 9, max: 9, ratio: 1, q1: 9, median: 9, q3: 9, n_zero: 0, min_positive: 9 },
      // np.percentile([70, 1], [25, 50, 75]) -> [18.25, 35.5, 52.75]
      { quality: 4, n: 2, min: 1, max: 70, ratio: 70, q1: 18.25, median: 35.5, q3: 52.75, n_zero: 0, min_positive: 1 },
    ]);
  });
});

describe('pzQuartiles', () => {
  it('takes ceil(n/4) from each end, ties broken by session id', () => {
    const ids = ['e', 'd', 'c', 'b', 'a'];
    const pz = Float64Array.from([1, 1, 0, -1, -1]);
    const q = pzQuartiles([0, 1, 2, 3, 4], pz, ids);
    expect(Array.from(q.top, (i) => ids[i])).toEqual(['d', 'e']);
    expect(Array.from(q.bottom, (i) => ids[i])).toEqual(['a', 'b']);
  });
});

describe('interactionCost', () => {
  const counts = {
    user_tokens: Float64Array.from([10]),
    agent_tokens: Float64Array.from([100]),
    user_turns: Float64Array.from([3]),
    agent_turns: Float64Array.from([4]),
  };
  it.each([
    ['weighted', 60],
    ['user_tokens', 10],
    ['agent_tokens', 100],
    ['total_tokens', 110],
    ['total_turns', 7],
    ['user_turns', 3],
  ] as const)('%s', (definition, expected) => {
    expect(interactionCost(definition, counts, 0.5)[0]).toBe(expected);
  });
});

describe('floatKey', () => {
  it('writes keys like Python str(float)', () => {
    expect([0.5, 0.75, 1, 1.5, 2].map(floatKey)).toEqual(['0.5', '0.75', '1.0', '1.5', '2.0']);
  });
});
