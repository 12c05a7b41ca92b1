import { describe, it, expect } from 'vitest';
import { stratifiedDifference, stratifiedKruskalWallis, stratifiedPermutationP, stratifiedPermutationPs } from './stratified';
import { expectClose } from '../../../tests/support/expectClose';

const f = (xs: number[]) => Float64Array.from(xs);

describe('stratified condition tests', () => {
  const strata = [
    { task: 't1', a: f([1, 2]), b: f([3, 4, 5]) },
    { task: 't2', a: f([10, 12, 11]), b: f([13, 9, 14]) },
  ];
  it('weights the within-task differences by nₐn_b/(nₐ+n_b)', () => {
    // t1: d = 1.5 − 4 = −2.5, w = 6/5; t2: d = 11 − 12 = −1, w = 9/6
    expectClose(stratifiedDifference(strata), (1.2 * -2.5 + 1.5 * -1) / (1.2 + 1.5), 1e-14);
  });
  it('permutation p converges to the exact p from enumerating every within-task relabelling', () => {
    // exact: C(5,2) · C(6,3) = 10 · 20 = 200 equally likely relabellings, enumerated here
    const exact = enumerateP(strata);
    const p = stratifiedPermutationP(strata, 20000, 3)!;
    expect(Math.abs(p - exact)).toBeLessThan(0.01);
    expect(stratifiedPermutationP(strata, 999, 3)).toBe(stratifiedPermutationP(strata, 999, 3));
    expect(stratifiedPermutationP([], 99, 1)).toBeNull();
  });
  it('the stratified Kruskal–Wallis p is small for a clear shift and large for none', () => {
    const shifted = [[f([1, 2, 3, 4]), f([5, 6, 7, 8]), f([9, 10, 11, 12])], [f([1, 2, 3]), f([4, 5, 6]), f([7, 8, 9])]];
    expect(stratifiedKruskalWallis(shifted, 999, 1)!.p!).toBeLessThan(0.01);
    const mixed = [[f([1, 5, 9]), f([2, 6, 7]), f([3, 4, 8])]];
    expect(stratifiedKruskalWallis(mixed, 999, 1)!.p!).toBeGreaterThan(0.5);
  });
});

function enumerateP(strata: Array<{ task: string; a: Float64Array; b: Float64Array }>): number {
  const splits = strata.map((s) => {
    const pool = [...s.a, ...s.b];
    const out: Array<{ task: string; a: Float64Array; b: Float64Array }> = [];
    const choose = (start: number, picked: number[]) => {
      if (picked.length === s.a.length) {
        out.push({ task: s.task, a: f(picked.map((i) => pool[i]!)), b: f(pool.filter((_, i) => !picked.includes(i))) });
        return;
      }
      for (let i = start; i < pool.length; i++) choose(i + 1, [...picked, i]);
    };
    choose(0, []);
    return out;
  });
  const observed = Math.abs(stratifiedDifference(strata));
  let extreme = 0;
  let total = 0;
  for (const x of splits[0]!) for (const y of splits[1]!) (total++, Math.abs(stratifiedDifference([x, y])) >= observed - 1e-12 && extreme++);
  return extreme / total;
}

describe('stratifiedPermutationPs', () => {
  it('gives each metric exactly the p of stratifiedPermutationP on that metric alone (same seed)', () => {
    const shape = [[4, 6], [9, 3], [2, 2]] as const;
    let x = 1;
    const metric = (scale: number) => shape.map(([na, nb], k) => ({
      task: `t${k}`,
      a: Float64Array.from({ length: na }, () => ((x = (x * 48271) % 2147483647) % 97) * scale),
      b: Float64Array.from({ length: nb }, () => ((x = (x * 48271) % 2147483647) % 89) * scale),
    }));
    const metrics = [metric(1), metric(0.1), metric(3)];
    const joint = stratifiedPermutationPs(metrics, 999, 17);
    metrics.forEach((strata, m) => expect(joint[m]).toBe(stratifiedPermutationP(strata, 999, 17)));
    expect(() => stratifiedPermutationPs([metrics[0]!, metrics[1]!.slice(1)], 10, 1)).toThrow(/sizes differ/);
  });
});
