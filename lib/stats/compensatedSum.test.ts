import { describe, it, expect } from 'vitest';
import { compensatedSum } from './compensatedSum';
import { mean } from './mean';
import { zScores } from './zScores';

describe('compensatedSum', () => {
  it('equals math.fsum where plain addition loses the last bit', () => {
    // python3: math.fsum([4.333333333333333, 3.6666666666666665, 3.6666666666666665, 2.3333333333333335,
    //   3.6666666666666665, 4.666666666666667]) -> 22.333333333333332 (plain left-to-right: 22.333333333333336)
    const xs = [4.333333333333333, 3.6666666666666665, 3.6666666666666665, 2.3333333333333335, 3.6666666666666665, 4.666666666666667];
    expect(compensatedSum(xs)).toBe(22.333333333333332);
    expect(xs.reduce((a, b) => a + b, 0)).toBe(22.333333333333336); // the failure the compensation fixes
    // math.fsum([1e100, 1.0, -1e100, 1e-100]) -> 1.0 (Neumaier's own example of cancellation)
    expect(compensatedSum([1e100, 1, -1e100])).toBe(1);
    // math.fsum([0.1] * 10) -> 1.0
    expect(compensatedSum(new Array(10).fill(0.1))).toBe(1);
  });
  it('gives z = 0 exactly for a value equal to the mean of averaged ratings', () => {
    // python3: math.fsum([3, 3.6666666666666665, 4.333333333333333]) / 3 -> 3.6666666666666665
    const xs = [3, 3.6666666666666665, 4.333333333333333];
    expect(mean(xs)).toBe(3.6666666666666665);
    expect(zScores(xs)[1]).toBe(0);
    expect(Object.is(zScores(xs)[1], 0)).toBe(true);
  });
});
