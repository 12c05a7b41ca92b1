/**
 * Percentile with linear interpolation between closest ranks (numpy's default "linear" method):
 * h = (n−1)·q/100, value = x₍⌊h⌋₎ + (h − ⌊h⌋)(x₍⌊h⌋+1₎ − x₍⌊h⌋₎) on the sorted values. Empty → NaN.
 * Reference: numpy.percentile(x, q).
 */
export function percentile(values: ArrayLike<number>, q: number): number {
  const n = values.length;
  if (n === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const h = ((n - 1) * q) / 100;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}
