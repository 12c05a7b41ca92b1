/** Two raters' values on the items both of them rated, in item-key order. */
export interface PairedRatings<A, B = A> {
  keys: string[];
  a: A[];
  b: B[];
}

/**
 * Pairwise-complete alignment: keeps the items (sessions, utterances) present in both raters'
 * maps, sorted by key so results do not depend on file order. Missing ratings are simply absent
 * from a map; an item only one rater rated is dropped for this pair only.
 */
export function pairwiseComplete<A, B = A>(a: ReadonlyMap<string, A>, b: ReadonlyMap<string, B>): PairedRatings<A, B> {
  const keys = [...a.keys()].filter((key) => b.has(key)).sort();
  return { keys, a: keys.map((key) => a.get(key)!), b: keys.map((key) => b.get(key)!) };
}
