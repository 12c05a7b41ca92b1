import { describe, expect, it } from 'vitest';
import { expectClose } from '../../../tests/support/expectClose';
import { iccInference } from './iccInference';

// Reference: tests/fixtures/agreement/reference.py icc_inference(X) — McGraw & Wong Table 7 with
// scipy.stats.f.ppf / f.sf. @stdlib's F quantile and incomplete beta agree with scipy to 1e-12 relative, so
// bounds are compared at 1e-12 relative.
const REL = 1e-12;

const shroutFleiss = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]];

describe('iccInference', () => {
  it('reproduces the R psych::ICC documented output for the Shrout & Fleiss data', () => {
    // psych::ICC(sf) (psych manual): ICC1 [-0.133, 0.72] p .16477; ICC2 [0.019, 0.76]; ICC3 [0.342, 0.95]
    // p .00013; ICC1k [-0.884, 0.91]; ICC2k [0.071, 0.93]; ICC3k [0.676, 0.99]
    const ci = iccInference(shroutFleiss);
    const round = (x: number | undefined, d: number) => Math.round(x! * 10 ** d) / 10 ** d;
    expect([round(ci.icc1?.lower, 3), round(ci.icc1?.upper, 2), round(ci.icc1?.p, 5)]).toEqual([-0.133, 0.72, 0.16477]);
    expect([round(ci.a1?.lower, 3), round(ci.a1?.upper, 2), round(ci.a1?.p, 5)]).toEqual([0.019, 0.76, 0.00013]);
    expect([round(ci.c1?.lower, 3), round(ci.c1?.upper, 2)]).toEqual([0.342, 0.95]);
    expect([round(ci.icc1k?.lower, 3), round(ci.icc1k?.upper, 2)]).toEqual([-0.884, 0.91]);
    expect([round(ci.ak?.lower, 3), round(ci.ak?.upper, 2)]).toEqual([0.071, 0.93]);
    expect([round(ci.ck?.lower, 3), round(ci.ck?.upper, 2)]).toEqual([0.676, 0.99]);
  });

  it('matches scipy to full precision on the Shrout & Fleiss data', () => {
    // r.icc_inference(sf)
    const ci = iccInference(shroutFleiss);
    expectClose(ci.icc1!.lower, -0.13293232487475096, REL);
    expectClose(ci.icc1!.upper, 0.7225600623281211, REL);
    expectClose(ci.icc1!.p, 0.16476880834463953, REL);
    expectClose(ci.icc1k!.lower, -0.8844421552381196, REL);
    expectClose(ci.icc1k!.upper, 0.9124154203407755, REL);
    expectClose(ci.c1!.lower, 0.34246476503392614, REL);
    expectClose(ci.c1!.upper, 0.9458582599553597, REL);
    expectClose(ci.c1!.p, 0.000134566516484335, REL);
    expectClose(ci.ck!.lower, 0.6756747138163055, REL);
    expectClose(ci.ck!.upper, 0.9858916781690623, REL);
    expectClose(ci.a1!.lower, 0.018786513374712027, REL);
    expectClose(ci.a1!.upper, 0.7610843696489529, REL);
    expectClose(ci.ak!.lower, 0.0711368153025034, REL);
    expectClose(ci.ak!.upper, 0.9272320401677219, REL);
  });

  it('matches scipy on a 7 × 3 Likert matrix', () => {
    const x = [[4, 5, 4], [2, 2, 3], [5, 4, 5], [3, 3, 2], [2, 3, 3], [1, 2, 1], [5, 4, 4]];
    const ci = iccInference(x);
    expectClose(ci.icc1!.lower, 0.5065823162000891, REL);
    expectClose(ci.icc1!.upper, 0.9613744195202966, REL);
    expectClose(ci.icc1!.p, 2.9797444377467216e-5, REL);
    expectClose(ci.a1!.lower, 0.4781210151642194, REL);
    expectClose(ci.a1!.upper, 0.9616740272573036, REL);
    expectClose(ci.ak!.lower, 0.7332237132497552, REL);
    expectClose(ci.ak!.upper, 0.9868896990614894, REL);
    expectClose(ci.c1!.p, 0.00014997076252068822, REL);
  });

  it('is null where the ICC or its F statistic is undefined', () => {
    const perfect = iccInference([[1, 1], [3, 3], [5, 5]]); // MSE = MSW = 0: F infinite
    expect(Object.values(perfect).every((v) => v === null)).toBe(true);
    expect(iccInference([[3, 4]]).a1).toBeNull();
    expect(iccInference([[4, 3], [2, 3]]).icc1).toBeNull(); // 2 targets: too few for an interval
    expect(iccInference([[3, 3], [3, 3]]).c1).toBeNull();
  });
});
