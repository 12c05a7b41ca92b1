import { describe, it, expect } from 'vitest';
import { pearson } from './pearson';
import { expectClose } from '../../tests/support/expectClose';

describe('pearson', () => {
  it('matches scipy', () => {
    // scipy.stats.pearsonr([3,1,4,1,5,9,2,6,5,3,5], [2,7,1,8,2,8,1,8,2,8,4]).statistic -> 0.09422924859889797
    expectClose(pearson([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], [2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4]), 0.09422924859889797);
  });
  it('is null for constant input, ±1 for exact lines', () => {
    expect(pearson([1, 1, 1], [1, 2, 3])).toBeNull();
    expect(pearson([1, 2, 3], [2, 4, 6])).toBe(1);
    expect(pearson([1, 2, 3], [6, 4, 2])).toBe(-1);
  });
  it('rejects mismatched lengths', () => {
    expect(() => pearson([1, 2], [1])).toThrow(/length/);
  });
});
