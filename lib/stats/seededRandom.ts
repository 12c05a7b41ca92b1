/**
 * Deterministic uniform [0, 1) generator (mulberry32, 32-bit state) so bootstrap intervals are
 * reproducible from a seed. Not for cryptography.
 * Reference: Tommy Ettinger's mulberry32 (public domain).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + MULBERRY32_STEP) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What mulberry32 adds to its state before each draw. */
export const MULBERRY32_STEP = 0x6d2b79f5;

/**
 * The generator's state after `draws` draws from `seed`, in O(1): the state is a counter (seed + draws·step
 * mod 2³²) and each output is a pure function of it, so a stream can be entered anywhere. A thread that
 * computes replicates r…s of a bootstrap starts at the state after r·(draws per replicate) and gets exactly
 * the numbers one sequential pass would have given those replicates.
 */
export function mulberry32StateAfter(seed: number, draws: number): number {
  if (!Number.isSafeInteger(draws) || draws < 0) throw new RangeError(`mulberry32StateAfter: draws must be a safe non-negative integer, got ${draws}`);
  return ((seed >>> 0) + Math.imul(draws % 4294967296, MULBERRY32_STEP)) >>> 0;
}
