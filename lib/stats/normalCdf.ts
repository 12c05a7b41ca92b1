import stdNormalCdf from '@stdlib/stats-base-dists-normal-cdf';

/**
 * Cumulative distribution function of the normal distribution N(mu, sigma²) at x:
 * Φ((x − mu)/sigma) = ½ · erfc(−(x − mu)/(sigma·√2)). Defaults to the standard normal.
 * Reference: scipy.stats.norm.cdf(x, loc=mu, scale=sigma).
 */
export function normalCdf(x: number, mu = 0, sigma = 1): number {
  return stdNormalCdf(x, mu, sigma);
}
