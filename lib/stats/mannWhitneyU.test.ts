import { describe, it, expect } from 'vitest';
import { mannWhitneyU } from './mannWhitneyU';
import { expectClose } from '../../tests/support/expectClose';

describe('mannWhitneyU', () => {
  it('matches scipy asymptotic with ties and continuity correction', () => {
    // scipy.stats.mannwhitneyu([0.1,0.4,0.4,0.2,0.9,0.5,0.3], [0.3,0.1,0.1,0.0,0.2,0.4],
    //   alternative='two-sided', method='asymptotic') -> statistic 33.0, pvalue 0.09573338486463373
    const r = mannWhitneyU([0.1, 0.4, 0.4, 0.2, 0.9, 0.5, 0.3], [0.3, 0.1, 0.1, 0.0, 0.2, 0.4]);
    expect(r?.u).toBe(33);
    expectClose(r?.p, 0.09573338486463373);
  });
  it('matches scipy for fully separated samples', () => {
    // scipy.stats.mannwhitneyu(range(1,13), range(13,23), alternative='two-sided', method='asymptotic')
    //   -> statistic 0.0, pvalue 8.733926588357827e-05
    const r = mannWhitneyU([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [13, 14, 15, 16, 17, 18, 19, 20, 21, 22]);
    expect(r?.u).toBe(0);
    expectClose(r?.p, 8.733926588357827e-5);
  });
  it('gives p = 1 when every value is equal', () => {
    // scipy.stats.mannwhitneyu([1,1,1],[1,1], alternative='two-sided', method='asymptotic') -> 3.0, 1.0
    expect(mannWhitneyU([1, 1, 1], [1, 1])).toEqual({ u: 3, p: 1 });
  });
  it('is null for an empty sample', () => {
    expect(mannWhitneyU([], [1])).toBeNull();
  });
});
