import { describe, it, expect } from 'vitest';
import { averageRanks } from './averageRanks';

describe('averageRanks', () => {
  it('averages ties like scipy', () => {
    // scipy.stats.rankdata([3,1,4,1,5,9,2,6,5,3,5], method='average')
    expect(Array.from(averageRanks([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]))).toEqual([
      4.5, 1.5, 6.0, 1.5, 8.0, 11.0, 3.0, 10.0, 8.0, 4.5, 8.0,
    ]);
  });
  it('handles all-equal and empty input', () => {
    expect(Array.from(averageRanks([7, 7, 7, 7]))).toEqual([2.5, 2.5, 2.5, 2.5]);
    expect(averageRanks([]).length).toBe(0);
  });
});
