import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { averageRanks } from './averageRanks';
import { mannWhitneyU } from './mannWhitneyU';
import { spearman } from './spearman';
import { pearson } from './pearson';

// Small integer values so ties are frequent.
const values = fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 40 });

describe('statistics agree with their brute-force definitions', () => {
  it('averageRanks: rank = #below + (#equal + 1)/2', () => {
    fc.assert(
      fc.property(values, (x) => {
        const r = averageRanks(x);
        x.forEach((v, i) => {
          const below = x.filter((w) => w < v).length;
          const equal = x.filter((w) => w === v).length;
          expect(r[i]).toBe(below + (equal + 1) / 2);
        });
      }),
    );
  });

  it('mannWhitneyU: U₁ counts pairs x > y plus half the ties', () => {
    fc.assert(
      fc.property(values, values, (x, y) => {
        let u = 0;
        for (const a of x) for (const b of y) u += a > b ? 1 : a === b ? 0.5 : 0;
        const r = mannWhitneyU(x, y)!;
        expect(r.u).toBeCloseTo(u, 9);
        expect(r.p).toBeGreaterThanOrEqual(0);
        expect(r.p).toBeLessThanOrEqual(1);
        // swapping the samples keeps p and mirrors U
        const s = mannWhitneyU(y, x)!;
        expect(s.p).toBeCloseTo(r.p, 12);
        expect(s.u).toBeCloseTo(x.length * y.length - r.u, 9);
      }),
    );
  });

  it('spearman is Pearson of the average ranks and invariant under monotone maps', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 })), { minLength: 3, maxLength: 40 }), (pairs) => {
        const x = pairs.map((p) => p[0]);
        const y = pairs.map((p) => p[1]);
        const r = spearman(x, y);
        const direct = pearson(averageRanks(x), averageRanks(y));
        if (direct === null) {
          // (Not `return expect(…)`: fast-check reads a returned false as a failed property.)
          expect(r).toBeNull();
          return;
        }
        expect(r!.rho).toBeCloseTo(direct, 12);
        const mapped = spearman(x.map((v) => Math.exp(v)), y.map((v) => v * v * v));
        expect(mapped!.rho).toBeCloseTo(r!.rho, 12);
      }),
    );
  });
});
