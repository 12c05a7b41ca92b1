import chisquareCdf from '@stdlib/stats-base-dists-chisquare-cdf';

export interface ContingencyTestResult {
  test: 'chi_square' | 'fisher_exact';
  /** Pearson χ² (also given for the exact test, for reference). */
  chi2: number;
  df: number;
  p: number;
}

/** Tables with at most this many cells' worth of enumeration get Fisher's exact test. */
const MAX_FISHER_TABLES = 2_000_000;

/**
 * Test of independence for an r×c table of counts (rows and columns whose total is 0 are dropped).
 * Pearson χ² = Σ (O − E)²/E, df = (r−1)(c−1), p = P(χ²_df ≥ χ²) — no continuity correction. For two rows
 * with an expected count below 5, Fisher's exact test instead: enumerate every table with the observed
 * margins (hypergeometric probability Π C(cⱼ, aⱼ)/C(N, r₁)) and sum those no more probable than the
 * observed one (relative tolerance 1e-7, as R). Null when fewer than two rows or columns remain.
 * References: scipy.stats.chi2_contingency(t, correction=False); R fisher.test(t) (network algorithm,
 * same definition of the two-sided p).
 */
export function contingencyTest(table: number[][]): ContingencyTestResult | null {
  const colTotals = table[0]?.map((_, j) => table.reduce((s, r) => s + r[j]!, 0)) ?? [];
  const keepCols = colTotals.map((t, j) => (t > 0 ? j : -1)).filter((j) => j >= 0);
  const rows = table.filter((r) => r.reduce((s, v) => s + v, 0) > 0).map((r) => keepCols.map((j) => r[j]!));
  if (rows.length < 2 || keepCols.length < 2) return null;
  const R = rows.map((r) => r.reduce((s, v) => s + v, 0));
  const C = keepCols.map((_, j) => rows.reduce((s, r) => s + r[j]!, 0));
  const N = R.reduce((s, v) => s + v, 0);
  let chi2 = 0;
  let minExpected = Infinity;
  rows.forEach((r, i) =>
    r.forEach((o, j) => {
      const e = (R[i]! * C[j]!) / N;
      minExpected = Math.min(minExpected, e);
      chi2 += ((o - e) * (o - e)) / e;
    }),
  );
  const df = (rows.length - 1) * (C.length - 1);
  if (rows.length === 2 && minExpected < 5 && C.reduce((n, c) => n * (c + 1), 1) <= MAX_FISHER_TABLES) {
    return { test: 'fisher_exact', chi2, df, p: fisherExact2xC(rows[0]!, C, R[0]!, N) };
  }
  return { test: 'chi_square', chi2, df, p: 1 - chisquareCdf(chi2, df) };
}

function logFactorials(n: number): Float64Array {
  const out = new Float64Array(n + 1);
  for (let i = 2; i <= n; i++) out[i] = out[i - 1]! + Math.log(i);
  return out;
}

/** Two-sided Fisher exact p of a 2×c table given its first row, column totals and first-row total. */
function fisherExact2xC(first: number[], cols: number[], r1: number, N: number): number {
  const lf = logFactorials(N);
  const lchoose = (n: number, k: number) => lf[n]! - lf[k]! - lf[n - k]!;
  const base = lchoose(N, r1);
  const logP = (a: number[]) => a.reduce((s, v, j) => s + lchoose(cols[j]!, v), 0) - base;
  const observed = logP(first);
  const c = cols.length;
  // suffix capacity: the most the remaining columns can take
  const rest = new Array<number>(c + 1).fill(0);
  for (let j = c - 1; j >= 0; j--) rest[j] = rest[j + 1]! + cols[j]!;
  let p = 0;
  const limit = observed + Math.log1p(1e-7);
  const walk = (j: number, left: number, acc: number) => {
    if (j === c - 1) {
      if (left > cols[j]!) return;
      const lp = acc + lchoose(cols[j]!, left) - base;
      if (lp <= limit) p += Math.exp(lp);
      return;
    }
    const lo = Math.max(0, left - rest[j + 1]!);
    const hi = Math.min(cols[j]!, left);
    for (let a = lo; a <= hi; a++) walk(j + 1, left - a, acc + lchoose(cols[j]!, a));
  };
  walk(0, r1, 0);
  return Math.min(1, p);
}
