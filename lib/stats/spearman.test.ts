import { describe, it, expect } from 'vitest';
import { spearman } from './spearman';
import { expectClose } from '../../tests/support/expectClose';

describe('spearman', () => {
  it('matches scipy with ties', () => {
    // r = scipy.stats.spearmanr([3,1,4,1,5,9,2,6,5,3,5], [2,7,1,8,2,8,1,8,2,8,4])
    // r.statistic -> 0.1384567651467695, r.pvalue -> 0.6847503048108998
    const r = spearman([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], [2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4]);
    expectClose(r?.rho, 0.1384567651467695);
    expectClose(r?.p, 0.6847503048108998);
  });
  it('matches scipy for a small p', () => {
    // scipy.stats.spearmanr([1..10], [2,1,4,3,6,5,8,7,10,9]) -> 0.9393939393939393, 5.4840529985136686e-05
    const r = spearman([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [2, 1, 4, 3, 6, 5, 8, 7, 10, 9]);
    expectClose(r?.rho, 0.9393939393939393);
    expectClose(r?.p, 5.4840529985136686e-5);
  });
  it('is null for constant input; perfect monotone gives p = 0', () => {
    expect(spearman([1, 2, 3, 4], [5, 5, 5, 5])).toBeNull();
    expect(spearman([1, 2, 3, 4], [1, 4, 9, 16])).toEqual({ rho: 1, p: 0 });
  });
});
