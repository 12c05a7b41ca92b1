import { describe, expect, it } from 'vitest';
import { expectClose } from '../../../tests/support/expectClose';
import { intraclassCorrelation } from './intraclassCorrelation';
import { twoWayMeanSquares } from './twoWayMeanSquares';

// Reference: tests/fixtures/agreement/reference.py — icc() from numpy ANOVA mean squares
// (mean_squares()), cross-checked by icc_check() (variance components from an explicit additive fit).

// Shrout & Fleiss (1979), Psychol. Bull. 86(2), Table 2: 6 targets × 4 judges.
const shroutFleiss = [
  [9, 2, 5, 8],
  [6, 1, 3, 2],
  [8, 4, 6, 8],
  [7, 1, 2, 6],
  [10, 5, 6, 9],
  [6, 2, 4, 7],
];

describe('intraclassCorrelation', () => {
  it('reproduces the published Shrout & Fleiss (1979) Table 4 values to 2 decimals', () => {
    const icc = intraclassCorrelation(shroutFleiss);
    const published = { icc1: 0.17, a1: 0.29, c1: 0.71, icc1k: 0.44, ak: 0.62, ck: 0.91 } as const;
    for (const [form, value] of Object.entries(published)) {
      const got = icc[form as keyof typeof published].value;
      expect(got, form).not.toBeNull();
      expect(Math.round(got! * 100) / 100, form).toBe(value);
    }
  });

  it('matches the numpy reference exactly on the Shrout & Fleiss data', () => {
    // python3 -c "import reference as r; print(r.icc(sf))"
    const icc = intraclassCorrelation(shroutFleiss);
    expectClose(icc.icc1.value, 0.16574176840547553);
    expectClose(icc.icc1k.value, 0.4427971336792688);
    expectClose(icc.a1.value, 0.2897637795275592);
    expectClose(icc.ak.value, 0.6200505475989893);
    expectClose(icc.c1.value, 0.7148407148407154);
    expectClose(icc.ck.value, 0.9093155423770697);
  });

  it('gets the published mean squares (BMS 11.24, JMS 32.49, EMS 1.02, WMS 6.26)', () => {
    // r.mean_squares(sf) → msr 11.241666666666669, msc 32.486111111111114, mse 1.019444444444442, msw 6.2638888888888875
    const ms = twoWayMeanSquares(shroutFleiss);
    expectClose(ms.rows, 11.241666666666669);
    expectClose(ms.columns, 32.486111111111114);
    expectClose(ms.error, 1.019444444444442, 1e-9);
    expectClose(ms.within, 6.2638888888888875);
  });

  it('matches the reference on a 7 × 3 Likert matrix', () => {
    const x = [[4, 5, 4], [2, 2, 3], [5, 4, 5], [3, 3, 2], [2, 3, 3], [1, 2, 1], [5, 4, 4]];
    // r.icc(X): icc1 0.8157894736842105, icc1k 0.93, a1 0.8141592920353982, ak 0.9292929292929292,
    //           c1 0.793103448275862, ck 0.9199999999999999
    const icc = intraclassCorrelation(x);
    expectClose(icc.icc1.value, 0.8157894736842105);
    expectClose(icc.icc1k.value, 0.93);
    expectClose(icc.a1.value, 0.8141592920353982);
    expectClose(icc.ak.value, 0.9292929292929292);
    expectClose(icc.c1.value, 0.793103448275862);
    expectClose(icc.ck.value, 0.9199999999999999);
  });

  it('separates absolute agreement from consistency under a constant offset', () => {
    // r.icc([[1,2],[3,4],[5,6]]): icc1 0.8823529411764706, a1 0.8888888888888888, c1 1.0, ck 1.0
    const icc = intraclassCorrelation([[1, 2], [3, 4], [5, 6]]);
    expectClose(icc.c1.value, 1);
    expectClose(icc.ck.value, 1);
    expectClose(icc.a1.value, 0.8888888888888888);
    expectClose(icc.ak.value, 0.9411764705882353);
    expectClose(icc.icc1.value, 0.8823529411764706);
  });

  it('is 1 for perfect agreement', () => {
    const icc = intraclassCorrelation([[1, 1], [3, 3], [5, 5]]);
    for (const e of Object.values(icc)) expect(e.value).toBe(1);
  });

  it('treats a denominator that is 0 in exact arithmetic as 0, not as ±1e15', () => {
    // With fractions.Fraction the ICC(A,k) denominator MSR + (MSC − MSE)/n of this matrix is exactly 0;
    // plain numpy gives −7.5e15. Other forms (r.icc(X)): a1 −0.24999999999999994, c1 −0.17241379310344823.
    const icc = intraclassCorrelation([[2, 3, 4, 2, 5], [1, 4, 1, 5, 2]]);
    expect(icc.ak).toEqual({ value: null, reason: 'no variance in the ratings (denominator is 0)' });
    expectClose(icc.a1.value, -0.24999999999999994);
    expectClose(icc.c1.value, -0.17241379310344823);
  });

  it('is null with a reason when undefined', () => {
    const flat = intraclassCorrelation([[3, 3], [3, 3], [3, 3]]);
    expect(flat.c1).toEqual({ value: null, reason: 'no variance in the ratings (denominator is 0)' });
    const one = intraclassCorrelation([[3, 4]]);
    expect(one.a1.value).toBeNull();
    expect(one.a1.reason).toMatch(/at least 2 targets/);
    const none = intraclassCorrelation([]);
    expect(none.icc1.value).toBeNull();
  });
});
