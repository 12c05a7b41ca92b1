import { describe, it, expect } from 'vitest';
import { partialSpearman } from './partialSpearman';
import { expectClose } from '../../tests/support/expectClose';

describe('partialSpearman', () => {
  it('matches rank-residual Pearson computed with numpy/scipy', () => {
    // x=[3,1,4,1,5,9,2,6,5,3,5,8]; y=[2,7,1,8,2,8,1,8,2,8,4,5]; z=[1,2,2,3,3,3,4,4,5,5,5,5]
    // rx,ry,rz = (scipy.stats.rankdata(v) for v in (x,y,z)); A = np.column_stack([np.ones(12), rz])
    // ex = rx - A@np.linalg.lstsq(A,rx)[0]; ey = ry - A@np.linalg.lstsq(A,ry)[0]
    // r = scipy.stats.pearsonr(ex,ey).statistic -> 0.0802535449196473
    // 2*scipy.stats.t.sf(abs(r*np.sqrt(9/(1-r*r))), 9) -> 0.8145501536676047
    const r = partialSpearman(
      [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8],
      [2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5],
      [1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 5, 5],
    );
    expectClose(r?.rho, 0.0802535449196473);
    expectClose(r?.p, 0.8145501536676047);
  });
  it('is null below four rows', () => {
    expect(partialSpearman([1, 2, 3], [3, 2, 1], [1, 1, 2])).toBeNull();
  });
});
