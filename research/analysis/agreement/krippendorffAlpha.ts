import { defined, undefinedBecause, type Estimate } from './estimate';

export type AlphaLevel = 'nominal' | 'ordinal' | 'interval';

/**
 * Krippendorff's α for any number of raters with missing data. `units[u]` holds the values the raters
 * gave unit u (missing ones simply absent); units with fewer than two values are not pairable and are
 * left out. Coincidences: every ordered pair of values within a unit of m values adds 1/(m−1) to o_ck;
 * n_c = Σ_k o_ck, n = Σ n_c; α = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck, with δ² nominal [c≠k],
 * interval (c−k)², ordinal (Σ_{g between c and k} n_g − (n_c + n_k)/2)².
 * Undefined when fewer than two pairable values or no expected disagreement (one value throughout).
 * References: Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability" (worked example in the
 * test: α nominal .743, ordinal .815, interval .849); Python `krippendorff.alpha` (reference values).
 */
export function krippendorffAlpha(units: ReadonlyArray<readonly number[]>, level: AlphaLevel): Estimate {
  const pairable = units.filter((u) => u.length >= 2);
  const values = [...new Set(pairable.flat())].sort((a, b) => a - b);
  const V = values.length;
  const index = new Map(values.map((v, i) => [v, i]));
  const o = new Float64Array(V * V);
  for (const u of pairable) {
    const m = u.length;
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < m; j++) if (i !== j) o[index.get(u[i]!)! * V + index.get(u[j]!)!]! += 1 / (m - 1);
    }
  }
  const nc = new Float64Array(V);
  for (let c = 0; c < V; c++) for (let k = 0; k < V; k++) nc[c]! += o[c * V + k]!;
  const n = nc.reduce((s, x) => s + x, 0);
  if (n < 2) return undefinedBecause('fewer than two pairable values (units rated by at least two raters)');
  const delta = (c: number, k: number): number => {
    if (level === 'nominal') return c === k ? 0 : 1;
    if (level === 'interval') return (values[c]! - values[k]!) ** 2;
    const [lo, hi] = c < k ? [c, k] : [k, c];
    let s = 0;
    for (let g = lo; g <= hi; g++) s += nc[g]!;
    return (s - (nc[c]! + nc[k]!) / 2) ** 2;
  };
  let observed = 0;
  let expected = 0;
  for (let c = 0; c < V; c++) {
    for (let k = 0; k < V; k++) {
      const d = delta(c, k);
      observed += o[c * V + k]! * d;
      expected += nc[c]! * nc[k]! * d;
    }
  }
  if (expected === 0) return undefinedBecause('no expected disagreement: every value is the same');
  return defined(1 - ((n - 1) * observed) / expected);
}
