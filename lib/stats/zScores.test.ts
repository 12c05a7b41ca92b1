import { describe, it, expect } from 'vitest';
import { zScores } from './zScores';
import { expectClose } from '../../tests/support/expectClose';

describe('zScores', () => {
  it('matches scipy.stats.zscore(ddof=1)', () => {
    // scipy.stats.zscore([2,4,4,4,5,5,7,9], ddof=1)
    const expected = [
      -1.403121520040228, -0.46770717334674267, -0.46770717334674267, -0.46770717334674267, 0.0, 0.0,
      0.9354143466934853, 1.8708286933869707,
    ];
    const z = zScores([2, 4, 4, 4, 5, 5, 7, 9]);
    expected.forEach((e, i) => expectClose(z[i], e));
  });
  it('gives 0 for zero variance and for a single value', () => {
    expect(Array.from(zScores([3, 3, 3]))).toEqual([0, 0, 0]);
    expect(Array.from(zScores([42]))).toEqual([0]);
  });
});
