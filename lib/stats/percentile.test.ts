import { describe, it, expect } from 'vitest';
import { percentile } from './percentile';
import { expectClose } from '../../tests/support/expectClose';

describe('percentile', () => {
  it('matches numpy linear interpolation', () => {
    // np.percentile([5,1,3,2,4,10], 2.5) -> 1.125 ; np.percentile([5,1,3,2,4,10], 97.5) -> 9.375
    expectClose(percentile([5, 1, 3, 2, 4, 10], 2.5), 1.125);
    expectClose(percentile([5, 1, 3, 2, 4, 10], 97.5), 9.375);
    expect(percentile([], 50)).toBeNaN();
  });
});
