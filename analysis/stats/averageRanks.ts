/**
 * Ranks 1..n with ties given the average of the ranks they span ("fractional" ranking).
 * Reference: scipy.stats.rankdata(x, method='average').
 */
export function averageRanks(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => values[a]! - values[b]!);
  const ranks = new Float64Array(n);
  let i = 0;
  while (i < n) {
    let j = i + 1;
    const v = values[order[i]!]!;
    while (j < n && values[order[j]!]! === v) j++;
    // positions i..j-1 (0-based) share ranks i+1..j → average (i+1+j)/2
    const r = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) ranks[order[k]!] = r;
    i = j;
  }
  return ranks;
}
