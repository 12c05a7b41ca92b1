import { describe, it, expect } from 'vitest';
import { bootstrapSpearmanCi } from './bootstrapSpearmanCi';
import { bootstrapCi } from './bootstrapCi';
import { spearman } from './spearman';
import { expectClose } from '../../tests/support/expectClose';

describe('bootstrapSpearmanCi', () => {
  // ties in both variables (quality on a 1–5 scale), 60 pairs
  const x = Array.from({ length: 60 }, (_, i) => 1 + ((i * 7) % 5));
  const y = Array.from({ length: 60 }, (_, i) => ((i * 13) % 17) + x[i]! * 3);

  it('equals the generic bootstrap of scipy-style Spearman with the same draws', () => {
    const fast = bootstrapSpearmanCi(x, y, { replicates: 300, seed: 42 })!;
    const slow = bootstrapCi(
      x.length,
      (idx) => spearman(Array.from(idx, (i) => x[i]!), Array.from(idx, (i) => y[i]!))?.rho ?? null,
      { replicates: 300, seed: 42 },
    )!;
    expect(fast.replicates).toBe(slow.replicates);
    expectClose(fast.low, slow.low, 1e-12);
    expectClose(fast.high, slow.high, 1e-12);
    const rho = spearman(x, y)!.rho;
    expect(fast.low).toBeLessThan(rho);
    expect(fast.high).toBeGreaterThan(rho);
  });
  it('is null for fewer than three pairs or constant input', () => {
    expect(bootstrapSpearmanCi([1, 2], [2, 1], { replicates: 10, seed: 1 })).toBeNull();
    expect(bootstrapSpearmanCi([1, 1, 1, 1], [1, 2, 3, 4], { replicates: 10, seed: 1 })).toBeNull();
  });
});
