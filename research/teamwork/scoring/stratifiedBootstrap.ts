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

/** The statistic's defined values over the replicates, in draw order. */
export function stratifiedBootstrapValues<U>(
  strata: ReadonlyArray<readonly U[]>,
  statistic: (drawn: ReadonlyArray<readonly U[]>) => number | null,
  options: BootstrapOptions,
): number[] {
  const random = seededRandom(options.seed);
  const values: number[] = [];
  for (let b = 0; b < options.replicates; b++) {
    const drawn = strata.map((units) => units.map(() => units[Math.floor(random() * units.length)]!));
    const v = statistic(drawn);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  return values;
}

/** [lo, hi] of the statistic, or null when no replicate defines it. */
export function stratifiedBootstrapCi<U>(
  strata: ReadonlyArray<readonly U[]>,
  statistic: (drawn: ReadonlyArray<readonly U[]>) => number | null,
  options: BootstrapOptions,
): [number, number] | null {
  return percentileInterval(stratifiedBootstrapValues(strata, statistic, options));
}

export function percentileInterval(values: readonly number[]): [number, number] | null {
  if (values.length === 0) return null;
  return [percentile([...values], 2.5), percentile([...values], 97.5)];
}

/**
 * P(difference > 0) among the replicates, ties counted half: the bootstrap probability that the higher
 * model is really higher. Null without defined replicates.
 */
export function probabilityAbove(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const above = values.filter((v) => v > 1e-12).length;
  const tied = values.filter((v) => Math.abs(v) <= 1e-12).length;
  return (above + tied / 2) / values.length;
}
