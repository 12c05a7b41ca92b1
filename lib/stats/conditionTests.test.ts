import { describe, it, expect } from 'vitest';
import { mannWhitneyTest } from './mannWhitney';
import { mannWhitneyExactSf } from './mannWhitneyExact';
import { cliffsDelta } from './cliffsDelta';
import { kruskalWallis } from './kruskalWallis';
import { contingencyTest } from './contingency';
import { expectClose } from '../../tests/support/expectClose';

describe('mannWhitneyTest (method as scipy auto)', () => {
  it('is exact without ties when a sample has ≤ 8 values', () => {
    // scipy.stats.mannwhitneyu([1.2,3.4,2.2,5.1,0.7], [2.5,4.4,6.0,3.9,5.5,7.1,4.8], alternative='two-sided',
    //   method='auto') -> statistic 5.0, pvalue 0.04797979797979798
    const r = mannWhitneyTest([1.2, 3.4, 2.2, 5.1, 0.7], [2.5, 4.4, 6.0, 3.9, 5.5, 7.1, 4.8])!;
    expect(r.method).toBe('exact');
    expect(r.u).toBe(5);
    expectClose(r.p, 0.04797979797979798, 1e-13);
  });
  it('is exact for 8 against 30 values', () => {
    const x = [2.040919, -2.555665, 0.418099, -0.56777, -0.452649, -0.215597, -2.019986, -0.231932];
    const y = [0.148209, 0.625283, 2.463724, 1.459148, -0.841397, 0.794797, 0.176536, 0.948632, -0.808188, 1.041772, 1.035381, 2.375626,
      1.116645, 1.310547, -0.693117, 3.052729, -1.115646, 1.901802, 0.470096, -0.080647, 0.143715, 0.127985, 1.180189, 0.689941, 2.282571,
      -1.029604, 0.796919, -0.092056, 1.575872, -1.31806];
    // scipy.stats.mannwhitneyu(x, y, alternative='two-sided', method='auto') -> 62.0, 0.03772650836467874
    const r = mannWhitneyTest(x, y)!;
    expect(r).toMatchObject({ method: 'exact', u: 62 });
    expectClose(r.p, 0.03772650836467874, 1e-12);
  });
  it('falls back to the normal approximation with ties', () => {
    // scipy.stats.mannwhitneyu([1,2,2,3], [2,4,5], method='auto') -> 2.0, 0.19908985214820463
    const r = mannWhitneyTest([1, 2, 2, 3], [2, 4, 5])!;
    expect(r.method).toBe('asymptotic');
    expectClose(r.p, 0.19908985214820463);
  });
  it('the exact tail sums to one and is symmetric', () => {
    expect(mannWhitneyExactSf(0, 4, 6)).toBe(1);
    expectClose(mannWhitneyExactSf(13, 4, 6), 1 - mannWhitneyExactSf(12, 4, 6), 1e-15); // P(U ≥ 13) = P(U ≤ 11), mean 12
    expectClose(mannWhitneyExactSf(24 - 5, 4, 6), 1 - mannWhitneyExactSf(6, 4, 6), 1e-15); // P(U ≥ 19) = P(U ≤ 5)
  });
});

describe("Cliff's delta", () => {
  it('matches the pairwise sign mean', () => {
    // np.sign(np.subtract.outer([1,2,2,3], [2,4,5])).mean() -> -0.6666666666666666
    expectClose(cliffsDelta([1, 2, 2, 3], [2, 4, 5]), -0.6666666666666666, 1e-15);
    expect(cliffsDelta([5, 6], [1, 2])).toBe(1);
    expect(cliffsDelta([], [1])).toBeNull();
  });
});

describe('kruskalWallis', () => {
  it('matches scipy.stats.kruskal with ties', () => {
    // scipy.stats.kruskal([2.9,3.0,2.5,2.6,3.2],[3.8,2.7,4.0,2.4],[2.8,3.4,3.7,2.2,2.0],[3,3,3.4])
    //   -> statistic 1.5283189478010704, pvalue 0.6757499235738382
    const r = kruskalWallis([[2.9, 3.0, 2.5, 2.6, 3.2], [3.8, 2.7, 4.0, 2.4], [2.8, 3.4, 3.7, 2.2, 2.0], [3, 3, 3.4]])!;
    expectClose(r.h, 1.5283189478010704);
    expectClose(r.p, 0.6757499235738382, 1e-12);
    expect(r.df).toBe(3);
    expect(kruskalWallis([[1, 1], [1]])).toBeNull();
  });
});

describe('contingencyTest', () => {
  it('χ² without continuity correction', () => {
    // scipy.stats.chi2_contingency([[10,12,7,3],[4,15,9,11],[8,8,8,1]], correction=False)
    //   -> statistic 12.371332334332337, dof 6, pvalue 0.05417938021571197
    const r = contingencyTest([[10, 12, 7, 3], [4, 15, 9, 11], [8, 8, 8, 1]])!;
    expect(r.test).toBe('chi_square');
    expect(r.df).toBe(6);
    expectClose(r.chi2, 12.371332334332337);
    expectClose(r.p, 0.05417938021571197, 1e-12);
  });
  it("Fisher's exact test for a 2×4 table with small counts", () => {
    // R: fisher.test(matrix(c(3,1,0,2, 0,2,4,1), nrow=2, byrow=TRUE))$p.value -> 0.061188811188811087
    const a = contingencyTest([[3, 1, 0, 2], [0, 2, 4, 1]])!;
    expect(a.test).toBe('fisher_exact');
    expectClose(a.p, 0.061188811188811087, 1e-12);
    // R: fisher.test(matrix(c(5,2,1,0, 1,3,2,4), nrow=2, byrow=TRUE))$p.value -> 0.073769367887014589
    expectClose(contingencyTest([[5, 2, 1, 0], [1, 3, 2, 4]])!.p, 0.073769367887014589, 1e-12);
  });
  it('drops empty rows and columns and is null when nothing is left to compare', () => {
    expect(contingencyTest([[3, 0, 2, 0], [0, 0, 0, 0]])).toBeNull();
    expect(contingencyTest([[3, 0, 2, 0], [1, 0, 4, 0]])!.df).toBe(1);
  });
});
