import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadDataset } from '../../research/analysis/input/dataset';
import { analyzeDataset, DEFAULT_OPTIONS } from '../../research/analysis/summary';
import { compareExpected, countNumbers } from './support/compareExpected';

// Held-out data (numpy seeds 2 and 3) with edge cases; expected.json from bench/analysis_ref.py
// (numpy/scipy), produced by tests/fixtures/analysis-reference/make_heldout.py <seed>. Also checks the
// extended sections (cost_definitions, feature_counts, features_opening, probing_pz, SEMs).
describe.each([2, 3])('held-out fixture (seed %i) against numpy/scipy', (seed) => {
  const dir = fileURLToPath(new URL(`../fixtures/analysis-reference/heldout-seed${seed}/`, import.meta.url));
  const expected = JSON.parse(readFileSync(`${dir}/expected.json`, 'utf8')) as Record<string, unknown>;
  const summary = analyzeDataset(loadDataset(dir), DEFAULT_OPTIONS).summary as unknown as Record<string, unknown>;

  it.each(Object.keys(expected))('%s matches', (key) => {
    expect(compareExpected(expected[key], summary[key], key).slice(0, 20)).toEqual([]);
  });

  it('includes the edge cases it was built for', () => {
    expect(countNumbers(expected)).toBeGreaterThan(1500);
    const tasks = summary.tasks as Record<string, { n: number; spearman_qc: unknown; cost_spread: Array<{ ratio: number | null }> }>;
    expect(tasks.solo?.n).toBe(1);
    expect(tasks.pair?.spearman_qc).toBeNull();
    expect(tasks.flat?.spearman_qc).toBeNull();
    expect(tasks.alpha?.cost_spread.some((c) => c.ratio === null)).toBe(true);
    const likert = summary.likert_correlations as Record<string, unknown>;
    expect(likert['ease|never']).toBeNull();
    const features = summary.features as Record<string, { cohen_d: number | null; p: number }>;
    expect(features['agent:rare_label']).toMatchObject({ cohen_d: null, p: 1 });
    expect(summary.n_sessions).toBeGreaterThan(summary.n_scored as number);
    // the solo task's session: no z, Pz or quadrant, not in a quartile, and a warning says so
    const sessions = summary.sessions as Record<string, { task: string; z_quality: number | null; pz: number | null; quadrant: string | null }>;
    const [soloId, solo] = Object.entries(sessions).find(([, r]) => r.task === 'solo')!;
    expect(solo).toMatchObject({ z_quality: null, pz: null, quadrant: null });
    const quartiles = summary.quartiles as { top: string[]; bottom: string[] };
    expect([...quartiles.top, ...quartiles.bottom]).not.toContain(soloId);
    const warnings = summary.warnings as string[];
    expect(warnings.some((w) => w.includes('one scored session: solo'))).toBe(true);
    expect(warnings.some((w) => w.includes('does not vary: flat'))).toBe(true);
    // beta sessions without annotations have missing rates: fewer sessions than the quartile holds
    const probing = (summary.features as Record<string, { n_top: number; n_bottom: number; method: string }>)['agent:probing']!;
    expect(probing.n_top + probing.n_bottom).toBeLessThan(2 * quartiles.top.length);
    expect(probing.method).toBe('asymptotic');
  });
});

describe('held-out fixture (seed 2) with --lambda 1.0 against numpy/scipy', () => {
  // python3 bench/analysis_ref.py tests/fixtures/analysis-reference/heldout-seed2 --lambda 1.0 --bootstrap 0 --json …
  const dir = fileURLToPath(new URL('../fixtures/analysis-reference/heldout-seed2/', import.meta.url));
  const expected = JSON.parse(readFileSync(`${dir}/expected_lambda1.json`, 'utf8')) as Record<string, unknown>;
  const summary = analyzeDataset(loadDataset(dir), { ...DEFAULT_OPTIONS, lambda: 1, bootstrapReplicates: 0 }).summary;
  it('matches every number', () => {
    expect(summary.lambda).toBe(1);
    expect(compareExpected(expected, summary).slice(0, 20)).toEqual([]);
  });
});
