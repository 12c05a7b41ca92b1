import { describe, it } from 'vitest';
import { normalCdf } from './normalCdf';
import { expectClose } from '../../tests/support/expectClose';

describe('normalCdf', () => {
  // each value: scipy.stats.norm.cdf(z)
  const cases: Array<[number, number]> = [
    [-3.5, 0.00023262907903552502],
    [-1.2, 0.11506967022170822],
    [0, 0.5],
    [0.7, 0.758036347776927],
    [2.5, 0.9937903346742238],
    [8.0, 0.9999999999999993],
  ];
  it.each(cases)('z=%d', (z, p) => {
    expectClose(normalCdf(z), p, 1e-12, 0);
  });
});
