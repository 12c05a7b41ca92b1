import { describe, expect, it } from 'vitest';
import { resampledMeans, resampledMeansShared } from './resampledMeans';
import { seededRandom } from '../../../lib/stats/seededRandom';

describe('resampledMeansShared', () => {
  it('equals resampledMeans run metric by metric with one generator per metric, bit for bit', () => {
    const data = seededRandom(11);
    const sizes = [5, 0, 17, 2, 40];
    const metrics = [0, 1, 2].map(() => sizes.map((n) => Float64Array.from({ length: n }, () => Math.round(data() * 1000) / 7)));
    const shared = resampledMeansShared(metrics, 200, 2024);
    metrics.forEach((groups, m) => {
      const random = seededRandom(2024);
      groups.forEach((v, g) => {
        if (v.length === 0) return expect(shared[m]![g]).toBeNull();
        expect(Array.from(shared[m]![g]!)).toEqual(Array.from(resampledMeans(v, 200, random)));
      });
    });
  });

  it('refuses metrics whose group sizes differ (their draws would not be the same)', () => {
    expect(() => resampledMeansShared([[new Float64Array(3)], [new Float64Array(4)]], 10, 1)).toThrow(/sizes differ/);
  });
});
