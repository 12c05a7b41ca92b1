/**
 * Σ xᵢ with Neumaier's compensated (improved Kahan–Babuška) summation: a running correction term
 * carries the low-order bits each addition loses, so the result is the correctly rounded sum except in
 * pathological cancellations (error ≤ 2ε·|Σxᵢ| + O(nε²)·Σ|xᵢ|, independent of n to first order).
 * Why: with plain left-to-right addition a mean of averaged ratings such as 3.6666666666666665 can miss
 * by one ulp, so a session whose quality equals its task mean got z = ±1e-16 instead of 0 and a quadrant
 * by the sign of rounding noise.
 * Reference: Neumaier (1974), ZAMM 54:39–51; equals Python's math.fsum on the tested inputs.
 */
export function compensatedSum(values: ArrayLike<number>): number {
  let sum = 0;
  let correction = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i]!;
    const t = sum + x;
    if (Math.abs(sum) >= Math.abs(x)) correction += sum - t + x;
    else correction += x - t + sum;
    sum = t;
  }
  return sum + correction;
}

/** Σ (xᵢ − centre)² with the same compensation (sums of squared deviations for SDs). */
export function compensatedSumOfSquares(values: ArrayLike<number>, centre: number): number {
  let sum = 0;
  let correction = 0;
  for (let i = 0; i < values.length; i++) {
    const d = values[i]! - centre;
    const x = d * d;
    const t = sum + x;
    if (Math.abs(sum) >= x) correction += sum - t + x;
    else correction += x - t + sum;
    sum = t;
  }
  return sum + correction;
}
