import { describe, it, expect } from 'vitest';
import { sampleSd } from './sampleSd';
import { expectClose } from '../../tests/support/expectClose';

describe('sampleSd', () => {
  it('matches numpy ddof=1', () => {
    // np.std([3,1,4,1,5,9,2,6,5,3,5], ddof=1) -> 2.3664319132398464
    expectClose(sampleSd([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]), 2.3664319132398464);
  });
  it('is 0 for constant input and NaN below two values', () => {
    expect(sampleSd([2, 2, 2])).toBe(0);
    expect(sampleSd([1])).toBeNaN();
  });
});
