import { describe, expect, it } from 'vitest';
import { mulberry32StateAfter, seededRandom } from './seededRandom';

/** The mulberry32 output of a state (the body of seededRandom's step, after the increment). */
function output(state: number): number {
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

describe('mulberry32StateAfter', () => {
  it('enters the stream of seededRandom at any position', () => {
    for (const seed of [0, 1, 7, 2024, 0xffffffff]) {
      const random = seededRandom(seed);
      const stream = Array.from({ length: 3000 }, () => random());
      for (const k of [0, 1, 2, 999, 2999]) {
        // draw k + 1 comes from the state after k draws plus one step
        expect(output(mulberry32StateAfter(seed, k + 1))).toBe(stream[k]);
      }
    }
  });

  it('wraps past 2^32 draws as the counter does, and rejects what is not a draw count', () => {
    // 2^32 steps of an odd increment bring a 32-bit counter back to where it started
    expect(mulberry32StateAfter(5, 2 ** 32)).toBe(5);
    expect(mulberry32StateAfter(5, 2 ** 32 + 3)).toBe(mulberry32StateAfter(5, 3));
    expect(() => mulberry32StateAfter(1, -1)).toThrow(RangeError);
    expect(() => mulberry32StateAfter(1, 1.5)).toThrow(RangeError);
  });
});
