import { describe, it } from 'vitest';
import { standardError } from './standardError';
import { expectClose } from '../../tests/support/expectClose';

describe('standardError', () => {
  it('matches scipy.stats.sem', () => {
    // scipy.stats.sem([2,4,4,4,5,5,7,9]) -> 0.7559289460184544
    expectClose(standardError([2, 4, 4, 4, 5, 5, 7, 9]), 0.7559289460184544);
  });
});
