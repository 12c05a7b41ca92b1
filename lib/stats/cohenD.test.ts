import { describe, it, expect } from 'vitest';
import { cohenD } from './cohenD';
import { expectClose } from '../../tests/support/expectClose';

describe('cohenD', () => {
  it('matches the numpy pooled-SD formula', () => {
    // a=[0.1,0.4,0.4,0.2,0.9,0.5,0.3]; b=[0.3,0.1,0.1,0.0,0.2,0.4]
    // (np.mean(a)-np.mean(b))/np.sqrt(((7-1)*np.var(a,ddof=1)+(6-1)*np.var(b,ddof=1))/11) -> 1.0078923526525632
    expectClose(cohenD([0.1, 0.4, 0.4, 0.2, 0.9, 0.5, 0.3], [0.3, 0.1, 0.1, 0.0, 0.2, 0.4]), 1.0078923526525632);
  });
  it('is null for zero pooled variance (a label that never occurs)', () => {
    expect(cohenD([0, 0, 0], [0, 0])).toBeNull();
    expect(cohenD([], [1, 2])).toBeNull();
  });
});
