import { describe, it, expect } from 'vitest';
import { studentTTwoSidedP } from './studentTTwoSidedP';
import { expectClose } from '../../tests/support/expectClose';

describe('studentTTwoSidedP', () => {
  // each value: 2 * scipy.stats.t.sf(abs(t), df)
  const cases: Array<[number, number, number]> = [
    [0.5, 3, 0.651447964848151],
    [2.1, 10, 0.06207724420221853],
    [-4.2, 27, 0.00026023564684676245],
    [8.5, 100, 1.887314043745019e-13],
    [12.0, 5, 7.089492517161522e-5],
    [30.0, 200, 5.724161208827853e-76],
  ];
  it.each(cases)('t=%d df=%d', (t, df, p) => {
    expectClose(studentTTwoSidedP(t, df), p, 1e-9, 0);
  });
  it('handles infinities and NaN', () => {
    expect(studentTTwoSidedP(Infinity, 5)).toBe(0);
    expect(studentTTwoSidedP(0, 5)).toBe(1);
    expect(studentTTwoSidedP(NaN, 5)).toBeNaN();
  });
});
