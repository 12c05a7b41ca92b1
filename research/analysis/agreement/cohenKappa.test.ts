import { describe, expect, it } from 'vitest';
import { expectClose } from '../../../tests/support/expectClose';
import { cohenKappa } from './cohenKappa';
import { LIKERT_CATEGORIES } from './scales';

// Reference values: tests/fixtures/agreement/reference.py, functions kappa() (disagreement-weight
// matrices) and kappa_check() (agreement weights by explicit loops; quadratic also via
// 2cov/(var+var+Δmean²)); both agree to 1e-15. sklearn is not installed on this machine.
describe('cohenKappa on the fixed 1..5 scale', () => {
  // category 5 never occurs
  const a = [1, 2, 3, 4, 4, 2, 1, 3, 3, 2];
  const b = [1, 2, 4, 4, 3, 2, 2, 3, 3, 1];

  it('matches the unweighted, linear and quadratic references', () => {
    // python3 -c "import reference as r; print(r.kappa(a, b, [1,2,3,4,5], 'none'))"  → 0.45945945945945954
    expectClose(cohenKappa(a, b, LIKERT_CATEGORIES).value, 0.45945945945945954);
    // r.kappa(a, b, [1,2,3,4,5], 'linear') → 0.6491228070175439
    expectClose(cohenKappa(a, b, LIKERT_CATEGORIES, 'linear').value, 0.6491228070175439);
    // r.kappa(a, b, [1,2,3,4,5], 'quadratic') → 0.8095238095238095
    expectClose(cohenKappa(a, b, LIKERT_CATEGORIES, 'quadratic').value, 0.8095238095238095);
  });

  it('keeps an unused middle category in the weights (fixed scale, not the observed one)', () => {
    const x = [1, 2, 4, 5, 5, 2, 1, 4];
    const y = [2, 2, 5, 5, 4, 1, 1, 4];
    // r.kappa(x, y, [1,2,3,4,5], w): none 0.33333333333333337, linear 0.7142857142857143, quadratic 0.9
    // (on the observed set [1,2,4,5] linear would be 0.6 and quadratic 0.8)
    expectClose(cohenKappa(x, y, LIKERT_CATEGORIES).value, 0.33333333333333337);
    expectClose(cohenKappa(x, y, LIKERT_CATEGORIES, 'linear').value, 0.7142857142857143);
    expectClose(cohenKappa(x, y, LIKERT_CATEGORIES, 'quadratic').value, 0.9);
  });

  it('gives 1 for perfect agreement and −1 for the quadratic extreme', () => {
    expect(cohenKappa([1, 3, 5, 5], [1, 3, 5, 5], LIKERT_CATEGORIES).value).toBe(1);
    expectClose(cohenKappa([1, 5], [5, 1], LIKERT_CATEGORIES, 'quadratic').value, -1);
  });

  it('is null with a reason, never NaN, when undefined', () => {
    const same = cohenKappa([3, 3, 3], [3, 3, 3], LIKERT_CATEGORIES, 'linear');
    expect(same.value).toBeNull();
    expect(same.reason).toMatch(/chance agreement is 1/);
    const empty = cohenKappa([], [], LIKERT_CATEGORIES);
    expect(empty).toEqual({ value: null, reason: 'no items rated by both' });
  });

  it('rejects values outside the category set and length mismatches', () => {
    expect(() => cohenKappa([1, 6], [1, 2], LIKERT_CATEGORIES)).toThrow(/6 is not one of the categories/);
    expect(() => cohenKappa([1], [1, 2], LIKERT_CATEGORIES)).toThrow(/length mismatch/);
  });
});

describe('cohenKappa on binary labels', () => {
  it('matches the reference', () => {
    const a = [1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0];
    const b = [1, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0];
    // r.kappa(a, b, [0, 1]) → 0.6571428571428571 (= r.kappa_check)
    expectClose(cohenKappa(a, b, [0, 1]).value, 0.6571428571428571);
  });
});
