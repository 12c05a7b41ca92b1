import { describe, it, expect } from 'vitest';
import { mean } from './mean';
import { expectClose } from '../../tests/support/expectClose';

describe('mean', () => {
  it('matches numpy', () => {
    // np.mean([3,1,4,1,5,9,2,6,5,3,5]) -> 4.0
    expectClose(mean([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]), 4.0);
    expectClose(mean(new Float64Array([0.1, 0.2, 0.3])), 0.2, 1e-15);
  });
  it('is NaN for empty input', () => {
    expect(mean([])).toBeNaN();
  });
});
