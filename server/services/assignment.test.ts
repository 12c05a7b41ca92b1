import { describe, expect, it } from 'vitest';
import { assignCondition } from './assignment';
import { seededRandom } from '../../lib/stats/seededRandom';

// Seeded arrivals, so a failure is reproducible.
function simulate(options: string[], arrivals: number, rng: () => number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i < arrivals; i++) {
    const chosen = assignCondition(options, counts, rng);
    counts.set(chosen, (counts.get(chosen) ?? 0) + 1);
    const values = options.map((o) => counts.get(o) ?? 0);
    // Balanced at every moment, not just at the end.
    expect(Math.max(...values) - Math.min(...values)).toBeLessThanOrEqual(1);
  }
  return counts;
}

describe('assignCondition (balanced)', () => {
  it.each([
    [['baseline', 'clarify-first']],
    [['a', 'b', 'c']],
  ])('1,000 arrivals over %j end with max − min ≤ 1', (options) => {
    for (const seed of [1, 2, 3]) {
      const counts = simulate(options, 1000, seededRandom(seed));
      const values = options.map((o) => counts.get(o) ?? 0);
      expect(values.reduce((a, b) => a + b, 0)).toBe(1000);
      expect(Math.max(...values) - Math.min(...values)).toBeLessThanOrEqual(1);
    }
  });

  it('always picks the option with the fewest sessions', () => {
    const counts = new Map([
      ['a', 5],
      ['b', 3],
      ['c', 4],
    ]);
    for (const r of [0, 0.5, 0.999]) expect(assignCondition(['a', 'b', 'c'], counts, () => r)).toBe('b');
  });

  it('breaks ties at random among the tied options only', () => {
    const counts = new Map([
      ['a', 2],
      ['b', 2],
      ['c', 7],
    ]);
    expect(assignCondition(['a', 'b', 'c'], counts, () => 0)).toBe('a');
    expect(assignCondition(['a', 'b', 'c'], counts, () => 0.99)).toBe('b');
    const seen = new Set<string>();
    const rng = seededRandom(42);
    for (let i = 0; i < 200; i++) seen.add(assignCondition(['a', 'b', 'c'], counts, rng));
    expect([...seen].sort()).toEqual(['a', 'b']);
  });

  it('treats unseen options as zero and rejects an empty list', () => {
    expect(assignCondition(['x', 'y'], new Map([['x', 1]]), () => 0.9)).toBe('y');
    expect(() => assignCondition([], new Map(), Math.random)).toThrow(/no options/);
  });
});
