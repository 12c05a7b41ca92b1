import { mannWhitneyU } from './mannWhitneyU';

/**
 * Cliff's delta: δ = (#{xᵢ > yⱼ} − #{xᵢ < yⱼ}) / (n₁n₂), from the Mann–Whitney U₁ (ties count ½):
 * δ = 2U₁/(n₁n₂) − 1. In [−1, 1]; positive when x tends to be larger. Null when a sample is empty.
 * Reference: Cliff (1993), Psychol. Bull. 114:494–509; numpy: (np.sign(x[:,None] − y[None,:])).mean().
 */
export function cliffsDelta(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  const mw = mannWhitneyU(x, y);
  if (mw === null) return null;
  return (2 * mw.u) / (x.length * y.length) - 1;
}
