export interface Quartiles {
  /** Session indices of the top ceil(n/4) sessions by Pz. */
  top: Int32Array;
  bottom: Int32Array;
}

/**
 * Top and bottom ceil(n/4) of the scored sessions by Pz over all tasks. Ties are broken by session id
 * (ascending) in both directions, so the choice is deterministic.
 */
export function pzQuartiles(scored: ArrayLike<number>, pz: Float64Array, ids: readonly string[]): Quartiles {
  const k = Math.ceil(scored.length / 4);
  const byId = (a: number, b: number) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0);
  const ascending = Array.from(scored).sort((a, b) => pz[a]! - pz[b]! || byId(a, b));
  const descending = Array.from(scored).sort((a, b) => pz[b]! - pz[a]! || byId(a, b));
  return { top: Int32Array.from(descending.slice(0, k)), bottom: Int32Array.from(ascending.slice(0, k)) };
}
