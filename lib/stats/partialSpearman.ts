import { averageRanks } from './averageRanks';
import { mean } from './mean';
import { pearson } from './pearson';
import { correlationTTestP, type Correlation } from './spearman';

/**
 * Partial Spearman correlation of x and y given z: rank all three (average ranks), regress the ranks of
 * x and of y on the ranks of z by least squares, and take the Pearson correlation of the residuals;
 * p from t = r·sqrt(df/((1+r)(1−r))) with df = n − 3. Null when n < 4 or a residual is constant.
 * Reference: Conover (1999), Practical Nonparametric Statistics §5.4; equals pingouin.partial_corr(...,
 * method='spearman'); numpy twin in bench/analysis_ref.py.
 */
export function partialSpearman(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  z: ArrayLike<number>,
): Correlation | null {
  const n = x.length;
  if (y.length !== n || z.length !== n) throw new Error('partialSpearman: length mismatch');
  if (n < 4) return null;
  const rz = averageRanks(z);
  const r = pearson(residualise(averageRanks(x), rz), residualise(averageRanks(y), rz));
  if (r === null) return null;
  return { rho: r, p: correlationTTestP(r, n - 3) };
}

/** Residuals of the least-squares line of y on x (y centred when x is constant). */
function residualise(y: Float64Array, x: Float64Array): Float64Array {
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < x.length; i++) {
    sxy += (x[i]! - mx) * (y[i]! - my);
    sxx += (x[i]! - mx) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const out = new Float64Array(y.length);
  for (let i = 0; i < y.length; i++) out[i] = y[i]! - my - slope * (x[i]! - mx);
  return out;
}
