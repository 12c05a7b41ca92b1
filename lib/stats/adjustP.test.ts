import { describe, it, expect } from 'vitest';
import { benjaminiHochbergAdjust, holmAdjust } from './adjustP';
import { expectClose } from '../../tests/support/expectClose';

// statsmodels 0.13.5 (Debian python3-statsmodels):
//   from statsmodels.stats.multitest import multipletests
//   p = [0.01, 0.04, 0.03, 0.005, 0.2, 0.5, 0.04, 0.0001]
//   multipletests(p, method='holm')[1], multipletests(p, method='fdr_bh')[1]
const P = [0.01, 0.04, 0.03, 0.005, 0.2, 0.5, 0.04, 0.0001];
const HOLM = [0.06, 0.16, 0.15, 0.035, 0.4, 0.5, 0.16, 0.0008];
const BH = [0.02666666666666667, 0.05333333333333334, 0.05333333333333334, 0.02, 0.2285714285714286, 0.5, 0.05333333333333334, 0.0008];

describe('multiple-comparison adjustment', () => {
  it('Holm matches multipletests(method="holm")', () => {
    holmAdjust(P).forEach((v, i) => expectClose(v, HOLM[i]!, 1e-14));
  });
  it('Benjamini–Hochberg matches multipletests(method="fdr_bh")', () => {
    benjaminiHochbergAdjust(P).forEach((v, i) => expectClose(v, BH[i]!, 1e-14));
  });
  it('skips tests that were not run and never exceeds 1', () => {
    const withNull = [null, ...P.slice(0, 4), null];
    // multipletests([0.01, 0.04, 0.03, 0.005], method='holm')[1] -> [0.03, 0.06, 0.06, 0.02]
    expect(holmAdjust(withNull).map((v) => (v === null ? null : Number(v.toFixed(12))))).toEqual([null, 0.03, 0.06, 0.06, 0.02, null]);
    expect(Math.max(...(holmAdjust([0.9, 0.8, 0.7]) as number[]))).toBe(1);
    expect(benjaminiHochbergAdjust([])).toEqual([]);
  });
});
