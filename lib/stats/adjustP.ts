/**
 * Holm's step-down adjustment (family-wise error): sort p ascending, p̃₍ᵢ₎ = max_{j≤i} min(1, (m−j+1)·p₍ⱼ₎).
 * Null entries (tests not run) are skipped and stay null; m counts the non-null p-values.
 * Reference: statsmodels.stats.multitest.multipletests(p, method='holm')[1].
 */
export function holmAdjust(p: ReadonlyArray<number | null>): Array<number | null> {
  const idx = p.map((v, i) => ({ v, i })).filter((e): e is { v: number; i: number } => e.v !== null).sort((a, b) => a.v - b.v || a.i - b.i);
  const m = idx.length;
  const out: Array<number | null> = p.map(() => null);
  let running = 0;
  idx.forEach((e, k) => {
    running = Math.max(running, Math.min(1, (m - k) * e.v));
    out[e.i] = running;
  });
  return out;
}

/**
 * Benjamini–Hochberg step-up adjustment (false discovery rate): p̃₍ᵢ₎ = min_{j≥i} min(1, m·p₍ⱼ₎/j).
 * Null entries are skipped and stay null.
 * Reference: statsmodels.stats.multitest.multipletests(p, method='fdr_bh')[1].
 */
export function benjaminiHochbergAdjust(p: ReadonlyArray<number | null>): Array<number | null> {
  const idx = p.map((v, i) => ({ v, i })).filter((e): e is { v: number; i: number } => e.v !== null).sort((a, b) => a.v - b.v || a.i - b.i);
  const m = idx.length;
  const out: Array<number | null> = p.map(() => null);
  let running = 1;
  for (let k = m - 1; k >= 0; k--) {
    const e = idx[k]!;
    running = Math.min(running, (m * e.v) / (k + 1));
    out[e.i] = Math.min(1, running);
  }
  return out;
}
