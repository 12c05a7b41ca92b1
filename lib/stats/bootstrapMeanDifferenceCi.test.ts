import { describe, it, expect } from 'vitest';
import { bootstrapMeanDifferenceCi, bootstrapMeanDifferencesCi } from './bootstrapMeanDifferenceCi';

describe('bootstrapMeanDifferenceCi', () => {
  it('brackets the observed difference and is reproducible', () => {
    const a = Array.from({ length: 80 }, (_, i) => 0.5 + ((i * 17) % 23) / 100);
    const b = Array.from({ length: 80 }, (_, i) => 0.3 + ((i * 11) % 19) / 100);
    const observed = a.reduce((s, v) => s + v, 0) / 80 - b.reduce((s, v) => s + v, 0) / 80;
    const ci = bootstrapMeanDifferenceCi(a, b, { replicates: 1000, seed: 3 })!;
    expect(ci.low).toBeLessThan(observed);
    expect(ci.high).toBeGreaterThan(observed);
    expect(ci.high - ci.low).toBeLessThan(0.1);
    expect(bootstrapMeanDifferenceCi(a, b, { replicates: 1000, seed: 3 })).toEqual(ci);
  });
  it('gives each column the same interval as a single-column run with the same seed', () => {
    const a1 = [1, 4, 2, 8, 5, 7];
    const a2 = [0.1, 0.3, 0.2, 0.9, 0.4, 0.4];
    const b1 = [3, 1, 2, 2];
    const b2 = [0.5, 0.5, 0.1, 0.0];
    const both = bootstrapMeanDifferencesCi([a1, a2], [b1, b2], { replicates: 300, seed: 5 });
    expect(both[0]).toEqual(bootstrapMeanDifferenceCi(a1, b1, { replicates: 300, seed: 5 }));
    expect(both[1]).toEqual(bootstrapMeanDifferenceCi(a2, b2, { replicates: 300, seed: 5 }));
  });
  it('is a point when both groups are constant, null when a group is empty', () => {
    expect(bootstrapMeanDifferenceCi([1, 1], [0, 0, 0], { replicates: 50, seed: 1 })).toEqual({ low: 1, high: 1, replicates: 50 });
    expect(bootstrapMeanDifferenceCi([], [1], { replicates: 5, seed: 1 })).toBeNull();
  });
});
