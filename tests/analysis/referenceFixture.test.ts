import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadDataset } from '../../research/analysis/input/dataset';
import { analyzeDataset, DEFAULT_OPTIONS } from '../../research/analysis/summary';
import { compareExpected, countNumbers } from './support/compareExpected';

const dir = fileURLToPath(new URL('../fixtures/analysis-reference/', import.meta.url));
const expected = JSON.parse(readFileSync(`${dir}/expected.json`, 'utf8')) as Record<string, unknown>;

describe('analysis reference fixture (expected.json computed with numpy/scipy 1.17)', () => {
  const summary = analyzeDataset(loadDataset(dir), DEFAULT_OPTIONS).summary as unknown as Record<string, unknown>;

  it.each(Object.keys(expected))('%s matches every number within 1e-9 relative / 1e-12 absolute', (key) => {
    const diffs = compareExpected(expected[key], summary[key], key);
    expect(diffs.slice(0, 20)).toEqual([]);
  });

  it('the comparison notices a wrong number, a missing key and a reordered list', () => {
    expect(compareExpected({ a: 1, b: [1, 2] }, { a: 1 + 2e-9, b: [1, 2] })).toHaveLength(1);
    expect(compareExpected({ a: 1 }, {})).toEqual(['$.a: missing']);
    expect(compareExpected({ a: ['x', 'y'] }, { a: ['y', 'x'] })).toHaveLength(2);
    expect(compareExpected({ a: 0 }, { a: 5e-13 })).toEqual([]);
  });

  it('covers the whole expected file', () => {
    expect(countNumbers(expected)).toBe(989);
    expect(Object.keys(expected).sort()).toEqual(
      ['features', 'lambda', 'likert_correlations', 'n_scored', 'n_sessions', 'quartiles', 'sensitivity_lambda', 'sessions', 'tasks'].sort(),
    );
  });
});
