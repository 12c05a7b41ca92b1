/**
 * Ranks 1..n with ties given the average of the ranks they span ("fractional" ranking).
 * Values must not be NaN. Implementation: sort a copy natively, then each value's tie block
 * [lo, hi) is found by binary search and its rank is (lo + 1 + hi) / 2.
 * Reference: scipy.stats.rankdata(x, method='average').
 */
export function averageRanks(values: ArrayLike<number>): Float64Array {
  return rankWithSorted(values).ranks;
}

/** Average ranks plus the sorted copy of the values (callers reuse it, e.g. for tie counts). */
export function rankWithSorted(values: ArrayLike<number>): { ranks: Float64Array; sorted: Float64Array } {
  const n = values.length;
  const sorted = Float64Array.from(values).sort();
  const ranks = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    // first index with sorted[k] >= v
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    // first index with sorted[k] > v
    let end = lo;
    hi = n;
    while (end < hi) {
      const mid = (end + hi) >>> 1;
      if (sorted[mid]! <= v) end = mid + 1;
      else hi = mid;
    }
    ranks[i] = (lo + 1 + end) / 2;
  }
  return { ranks, sorted };
}
