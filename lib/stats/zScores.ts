import { mean } from './mean';
import { sampleSd } from './sampleSd';

/**
 * Standard scores with the sample SD: zᵢ = (xᵢ − x̄)/s, s with ddof = 1. When s is 0 or undefined
 * (constant input or a single value) every z is 0, so a session alone in its task is "average".
 * Reference: scipy.stats.zscore(x, ddof=1) (which gives NaN where this gives 0).
 */
export function zScores(values: ArrayLike<number>): Float64Array {
  const out = new Float64Array(values.length);
  const sd = sampleSd(values);
  if (!(sd > 0)) return out;
  const m = mean(values);
  for (let i = 0; i < values.length; i++) out[i] = (values[i]! - m) / sd;
  return out;
}
