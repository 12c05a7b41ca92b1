import { defined, undefinedBecause, type Estimate } from './estimate';

export type KappaWeights = 'unweighted' | 'linear' | 'quadratic';

/**
 * Cohen's kappa for two raters on a fixed, ordered category set, optionally weighted.
 *
 *   O = observed proportions (confusion table / n), E = outer(row margins, column margins),
 *   w_ij = disagreement weight: unweighted [i≠j], linear |i−j|/(K−1), quadratic ((i−j)/(K−1))²,
 *   κ = 1 − Σ w·O / Σ w·E.
 *
 * The category set is fixed by the caller (e.g. 1..5), so an unused category still sets the weights.
 * Undefined (null with a reason) when there are no items or the chance disagreement Σ w·E is 0
 * (both raters used one and the same category throughout).
 * References: Cohen (1960) Educ. Psychol. Meas. 20:37–46; Cohen (1968) Psychol. Bull. 70:213–220;
 * equals sklearn.metrics.cohen_kappa_score(a, b, labels=categories, weights=None|'linear'|'quadratic').
 */
export function cohenKappa<T>(
  a: readonly T[],
  b: readonly T[],
  categories: readonly T[],
  weights: KappaWeights = 'unweighted',
): Estimate {
  if (a.length !== b.length) throw new Error(`cohenKappa: length mismatch ${a.length} vs ${b.length}`);
  const n = a.length;
  if (n === 0) return undefinedBecause('no items rated by both');
  const k = categories.length;
  if (k < 2) throw new Error('cohenKappa: need at least two categories');
  const index = new Map<T, number>();
  categories.forEach((c, i) => index.set(c, i));
  // counts; divided by n (and n² for chance) when summed
  const observed = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  const rowMargin = new Array<number>(k).fill(0);
  const colMargin = new Array<number>(k).fill(0);
  for (let t = 0; t < n; t++) {
    const i = index.get(a[t]!);
    const j = index.get(b[t]!);
    if (i === undefined || j === undefined) {
      throw new Error(`cohenKappa: value ${String(i === undefined ? a[t] : b[t])} is not one of the categories`);
    }
    observed[i]![j]! += 1;
    rowMargin[i]! += 1;
    colMargin[j]! += 1;
  }
  let observedDisagreement = 0;
  let chanceDisagreement = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const w = disagreementWeight(i, j, k, weights);
      observedDisagreement += (w * observed[i]![j]!) / n;
      chanceDisagreement += (w * rowMargin[i]! * colMargin[j]!) / (n * n);
    }
  }
  if (chanceDisagreement === 0) {
    return undefinedBecause('chance agreement is 1 (both raters used a single, identical category)');
  }
  return defined(1 - observedDisagreement / chanceDisagreement);
}

function disagreementWeight(i: number, j: number, k: number, weights: KappaWeights): number {
  const d = Math.abs(i - j) / (k - 1);
  if (weights === 'unweighted') return i === j ? 0 : 1;
  if (weights === 'linear') return d;
  return d * d;
}
