/**
 * Arithmetic mean: (1/n) · Σ xᵢ. Empty input → NaN.
 * Reference: numpy.mean.
 */
export function mean(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) return NaN;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i]!;
  return sum / n;
}
