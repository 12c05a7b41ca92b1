import { describe, it, expect } from 'vitest';
import { krippendorffAlpha } from './krippendorffAlpha';
import { fleissKappa } from './fleissKappa';
import { expectClose } from '../../../tests/support/expectClose';

// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg School for Communication,
// section C (4 observers, 12 units, missing data; "." = not rated):
//   A: 1 2 3 3 2 1 4 1 2 . . .
//   B: 1 2 3 3 2 2 4 1 2 5 . 3
//   C: . 3 3 3 2 3 4 2 2 5 1 .
//   D: 1 2 3 3 2 4 4 1 2 5 1 .
// Published: α_nominal = 0.743, α_ordinal = 0.815, α_interval = 0.849 (three decimals).
const A = [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null];
const B = [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3];
const C = [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null];
const D = [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null];
const units = A.map((_, u) => [A[u], B[u], C[u], D[u]].filter((v): v is number => v !== null));

describe("Krippendorff's alpha", () => {
  it("reproduces Krippendorff's worked example with missing data", () => {
    expect(Number(krippendorffAlpha(units, 'nominal').value!.toFixed(3))).toBe(0.743);
    expect(Number(krippendorffAlpha(units, 'ordinal').value!.toFixed(3))).toBe(0.815);
    expect(Number(krippendorffAlpha(units, 'interval').value!.toFixed(3))).toBe(0.849);
  });
  it('is 1 for perfect agreement, ignores unpairable units, and is undefined without variation', () => {
    expect(krippendorffAlpha([[1, 1], [2, 2, 2], [3]], 'interval').value).toBe(1);
    expect(krippendorffAlpha([[4, 4], [4, 4]], 'nominal').value).toBeNull();
    expect(krippendorffAlpha([[1], [2]], 'nominal').reason).toMatch(/pairable/);
  });
});

describe("Fleiss' kappa", () => {
  it('matches statsmodels on Fleiss (1971) style data', () => {
    // /usr/bin/python3 (statsmodels 0.13.5): from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa
    //   r = [[1,1,2],[2,2,2],[3,3,1],[1,2,3],[4,4,4],[2,2,5],[5,5,5],[3,3,3]]
    //   fleiss_kappa(aggregate_raters(r)[0], method='fleiss') -> 0.52
    const r = [[1, 1, 2], [2, 2, 2], [3, 3, 1], [1, 2, 3], [4, 4, 4], [2, 2, 5], [5, 5, 5], [3, 3, 3]];
    expectClose(fleissKappa(r).value, 0.52, 1e-12);
  });
  it('is undefined for unequal rater counts or a single category', () => {
    expect(fleissKappa([[1, 2], [1]]).value).toBeNull();
    expect(fleissKappa([[3, 3], [3, 3]]).value).toBeNull();
  });
});

describe('agreement intervals and table formatting', () => {
  it('bootstraps Spearman and kappa over sessions (seeded, around the estimate)', async () => {
    const { scoreAgreement } = await import('./scoreAgreement');
    const a = new Map<string, number>();
    const b = new Map<string, number>();
    for (let i = 0; i < 40; i++) {
      a.set(`s${i}`, 1 + (i % 5));
      b.set(`s${i}`, 1 + ((i + (i % 3 === 0 ? 1 : 0)) % 5));
    }
    const r = scoreAgreement(a, b);
    const again = scoreAgreement(a, b);
    expect(r.spearman_ci95).toEqual(again.spearman_ci95);
    expect(r.spearman_ci95!.lower).toBeLessThanOrEqual(r.spearman.value!);
    expect(r.spearman_ci95!.upper).toBeGreaterThanOrEqual(r.spearman.value!);
    const q = r.kappa_ci95.quadratic!;
    expect(q.lower).toBeLessThanOrEqual(r.kappa.quadratic.value!);
    expect(q.upper).toBeGreaterThanOrEqual(r.kappa.quadratic.value!);
    expect(q.replicates).toBe(1000);
  });
  it('prints small p as "< 0.0001", never 0.0000', async () => {
    const { pValue } = await import('./io/formatAgreement');
    expect(pValue(3e-9)).toBe('< 0.0001');
    expect(pValue(0.00012)).toBe('0.0001');
    expect(pValue(0.04567)).toBe('0.0457');
    expect(pValue(null)).toBe('—');
  });
});
