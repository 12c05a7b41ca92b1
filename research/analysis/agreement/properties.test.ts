import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cohenKappa, type KappaWeights } from './cohenKappa';
import { intraclassCorrelation, ICC_FORMS } from './intraclassCorrelation';
import { microF1 } from './microF1';
import { LIKERT_CATEGORIES } from './scales';

// Invariances that hold for any data, checked on random inputs (fast-check).
const likert = fc.integer({ min: 1, max: 5 });
const pairs = fc.array(fc.tuple(likert, likert), { minLength: 1, maxLength: 40 });
const weights = fc.constantFrom<KappaWeights>('unweighted', 'linear', 'quadratic');

describe('cohenKappa properties', () => {
  it('is symmetric, at most 1, and never NaN', () => {
    fc.assert(
      fc.property(pairs, weights, (p, w) => {
        const a = p.map(([x]) => x);
        const b = p.map(([, y]) => y);
        const ab = cohenKappa(a, b, LIKERT_CATEGORIES, w);
        const ba = cohenKappa(b, a, LIKERT_CATEGORIES, w);
        if (ab.value === null) return ba.value === null && typeof ab.reason === 'string';
        return ba.value !== null && Math.abs(ab.value - ba.value) < 1e-12 && ab.value <= 1 + 1e-12 && ab.value >= -1 - 1e-12;
      }),
    );
  });

  it('is 1 for identical ratings that use at least two categories', () => {
    fc.assert(
      fc.property(fc.array(likert, { minLength: 2, maxLength: 40 }), weights, (a, w) => {
        fc.pre(new Set(a).size >= 2);
        return Math.abs(cohenKappa(a, a, LIKERT_CATEGORIES, w).value! - 1) < 1e-12;
      }),
    );
  });
});

describe('intraclassCorrelation properties', () => {
  const matrix = fc.integer({ min: 2, max: 5 }).chain((k) =>
    fc.array(fc.array(likert, { minLength: k, maxLength: k }), { minLength: 2, maxLength: 30 }),
  );

  it('does not change when every rating is shifted or rescaled', () => {
    fc.assert(
      fc.property(matrix, fc.double({ min: -10, max: 10, noNaN: true }), fc.double({ min: 0.5, max: 3, noNaN: true }), (m, shift, scale) => {
        const base = intraclassCorrelation(m);
        const moved = intraclassCorrelation(m.map((row) => row.map((v) => v * scale + shift)));
        for (const form of ICC_FORMS) {
          const x = base[form].value;
          const y = moved[form].value;
          if (x === null || y === null) continue; // degenerate (zero-variance) draws
          expect(Math.abs(x - y)).toBeLessThan(1e-6 * Math.max(1, Math.abs(x)));
        }
      }),
    );
  });

  it('consistency forms ignore a constant offset per rater', () => {
    fc.assert(
      fc.property(matrix, (m) => {
        const base = intraclassCorrelation(m);
        fc.pre(base.c1.value !== null);
        const offset = intraclassCorrelation(m.map((row) => row.map((v, j) => v + 2 * j)));
        expect(Math.abs(offset.c1.value! - base.c1.value!)).toBeLessThan(1e-6);
        expect(Math.abs(offset.ck.value! - base.ck.value!)).toBeLessThan(1e-6);
      }),
    );
  });
});

describe('microF1 properties', () => {
  const labels = ['a', 'b', 'c', 'd'];
  const sets = fc.array(fc.tuple(fc.subarray(labels), fc.subarray(labels)), { maxLength: 30 });
  it('is symmetric and within [0, 1]', () => {
    fc.assert(
      fc.property(sets, (rows) => {
        const a = rows.map(([x]) => new Set(x));
        const b = rows.map(([, y]) => new Set(y));
        const ab = microF1(a, b, labels).value;
        const ba = microF1(b, a, labels).value;
        return ab === ba && (ab === null || (ab >= 0 && ab <= 1));
      }),
    );
  });
});
