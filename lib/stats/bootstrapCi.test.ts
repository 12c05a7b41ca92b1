import { describe, it, expect } from 'vitest';
import { bootstrapCi } from './bootstrapCi';
import { mean } from './mean';
import { seededRandom } from './seededRandom';

describe('bootstrapCi', () => {
  const data = Array.from({ length: 200 }, (_, i) => (i * 37) % 101);
  const meanOf = (idx: Uint32Array) => mean(Array.from(idx, (i) => data[i]!));

  it('is reproducible from its seed and differs across seeds', () => {
    const a = bootstrapCi(data.length, meanOf, { replicates: 500, seed: 7 });
    const b = bootstrapCi(data.length, meanOf, { replicates: 500, seed: 7 });
    const c = bootstrapCi(data.length, meanOf, { replicates: 500, seed: 8 });
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });
  it('covers the sample mean with about ±1.96 SE', () => {
    const ci = bootstrapCi(data.length, meanOf, { replicates: 2000, seed: 1 })!;
    const m = mean(data);
    expect(ci.low).toBeLessThan(m);
    expect(ci.high).toBeGreaterThan(m);
    // SE of the mean of 0..100-ish uniform values ≈ 29.2/√200 ≈ 2.06 → half-width ≈ 4.0
    expect((ci.high - ci.low) / 2).toBeGreaterThan(3.2);
    expect((ci.high - ci.low) / 2).toBeLessThan(4.8);
  });
  it('is null when the statistic is never defined', () => {
    expect(bootstrapCi(5, () => null, { replicates: 10, seed: 1 })).toBeNull();
  });
  it('seededRandom stays in [0,1)', () => {
    const r = seededRandom(123);
    for (let i = 0; i < 1000; i++) {
      const v = r();
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(1);
    }
  });
});
