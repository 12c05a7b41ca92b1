/**
 * Listwise-complete ratings matrix: the items (sessions) that every given rater scored, sorted by
 * key, as rows `matrix[item][rater]` in the raters' order — the input of a k-rater ICC.
 */
export function listwiseComplete(raters: readonly ReadonlyMap<string, number>[]): { keys: string[]; matrix: number[][] } {
  const [first, ...rest] = raters;
  if (!first) return { keys: [], matrix: [] };
  const keys = [...first.keys()].filter((key) => rest.every((r) => r.has(key))).sort();
  return { keys, matrix: keys.map((key) => raters.map((r) => r.get(key)!)) };
}
