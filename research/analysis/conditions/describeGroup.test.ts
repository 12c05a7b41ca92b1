import { describe, it, expect } from 'vitest';
import { bootstrapMeanCi, describeGroup } from './describeGroup';
import { bootstrapCi } from '../../../lib/stats/bootstrapCi';
import { mean } from '../../../lib/stats/mean';
import { expectClose } from '../../../tests/support/expectClose';

describe('describeGroup', () => {
  const values = Float64Array.from([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]);
  it('gives n, mean, median and SD as numpy', () => {
    // np.mean(x) -> 4.0, np.median(x) -> 4.0, np.std(x, ddof=1) -> 2.3664319132398464
    const d = describeGroup(values, { replicates: 0, seed: 1 });
    expect(d).toMatchObject({ n: 11, mean: 4, median: 4, mean_ci95: null });
    expectClose(d.sd, 2.3664319132398464, 1e-14);
    expect(describeGroup(Float64Array.from([7]), { replicates: 100, seed: 1 })).toEqual({ n: 1, mean: 7, median: 7, sd: null, mean_ci95: null });
    expect(describeGroup(new Float64Array(0), { replicates: 100, seed: 1 }).mean).toBeNull();
  });
  it('bootstraps the mean with the same draws as bootstrapCi', () => {
    const fast = bootstrapMeanCi(values, { replicates: 500, seed: 3 });
    const plain = bootstrapCi(values.length, (idx) => mean(Array.from(idx, (i) => values[i]!)), { replicates: 500, seed: 3 })!;
    expectClose(fast[0], plain.low, 1e-12);
    expectClose(fast[1], plain.high, 1e-12);
  });
});
