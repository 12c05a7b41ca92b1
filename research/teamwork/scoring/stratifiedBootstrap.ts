/**
 * Percentile bootstrap over tasks, resampled within each dimension (stratified): in each replicate,
 * for every stratum in the given order, draw as many units as it has, with replacement, from the seeded
 * generator (index = ⌊u·n⌋, u from lib/stats seededRandom); evaluate the statistic on the drawn
 * units; the interval is the 2.5th and 97.5th percentiles (numpy "linear") of the defined values.
 * Reference: Efron & Tibshirani (1993), ch. 13; Davison & Hinkley (1997) §3.8 (stratified resampling).
 */
import { percentile, seededRandom } from '../../../lib/stats';

export interface BootstrapOptions {
  replicates: number;
  seed: number;
}

/** [lo, hi] of the statistic, or null when no replicate defines it. */
export function stratifiedBootstrapCi<U>(
  strata: ReadonlyArray<readonly U[]>,
  statistic: (drawn: ReadonlyArray<readonly U[]>) => number | null,
  options: BootstrapOptions,
): [number, number] | null {
  const random = seededRandom(options.seed);
  const values: number[] = [];
  for (let b = 0; b < options.replicates; b++) {
    const drawn = strata.map((units) => units.map(() => units[Math.floor(random() * units.length)]!));
    const v = statistic(drawn);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  if (values.length === 0) return null;
  return [percentile(values, 2.5), percentile(values, 97.5)];
}
