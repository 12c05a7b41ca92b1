import { describe, it, expect } from 'vitest';
import { averageRanks } from './averageRanks';

describe('averageRanks', () => {
  it('averages ties like scipy', () => {
    // scipy.stats.rankdata([3,1,4,1,5,9,2,6,5,3,5], method='average')
    expect(Array.from(averageRanks([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]))).toEqual([
      4.5, 1.5, 6.0, 1.5, 8.0, 11.0, 3.0, 10.0, 8.0, 4.5, 8.0,
    ]);
  });
  it('ranks large inputs like a sort of (value, index) would, ties and ±0 included', () => {
    // the reference: positions in a stable sort of the indices by value, averaged over each block of equal values
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (const values of [
      Array.from({ length: 5000 }, random),
      Array.from({ length: 5000 }, () => 1 + Math.floor(random() * 5)),
      Array.from({ length: 3000 }, (_, i) => (i % 3 === 0 ? -0 : i % 3 === 1 ? 0 : Math.round(random() * 20) - 10)),
    ]) {
      const order = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]! || a - b);
      const expected = new Array<number>(values.length);
      for (let lo = 0; lo < order.length; ) {
        let hi = lo + 1;
        while (hi < order.length && values[order[hi]!] === values[order[lo]!]) hi++;
        for (let k = lo; k < hi; k++) expected[order[k]!] = (lo + 1 + hi) / 2;
        lo = hi;
      }
      expect(Array.from(averageRanks(values))).toEqual(expected);
    }
  });
  it('handles all-equal and empty input', () => {
    expect(Array.from(averageRanks([7, 7, 7, 7]))).toEqual([2.5, 2.5, 2.5, 2.5]);
    expect(averageRanks([]).length).toBe(0);
  });
});
