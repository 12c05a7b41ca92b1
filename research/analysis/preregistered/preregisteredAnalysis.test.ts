/**
 * `analyze --prereg` on a dataset with a planted effect and planted exclusions (tests/support/plantedPreregDataset.ts): each reason is
 * counted, the primary test on the kept rows equals scipy on the same rows, summary.json puts the section first,
 * the report's sections come in the order Pre-registered analysis, Deviations, Exploratory, and without --prereg
 * nothing changes. Reference (scipy 1.10, pandas; rows kept as the plan says):
 *
 *   d = pd.read_csv('sessions.csv', keep_default_na=False, dtype=str); numbers converted; quality '' → NaN
 *   keep = (d.is_pilot != 'true') & ~d.integrity_flags.str.split(';').apply(lambda f: 'mostly_pasted' in f)
 *        & (d.attention_check_passed != 'false') & (d.duration_s >= 300) & (d.duration_s <= 3600) & d.quality.notna()
 *   k = d[keep]; k['cost'] = k.user_tokens + 0.5 * k.agent_tokens; z = lambda s: (s - s.mean()) / s.std(ddof=1)
 *   k['pz'] = k.groupby('task').quality.transform(z) - k.groupby('task').cost.transform(z)
 *   a, b = k[k.condition == 'clarify-first'], k[k.condition == 'baseline']
 *   stats.mannwhitneyu(a.pz, b.pz, alternative='greater', method='auto')   → U = 377.0, p = 0.034012645926040766
 *   stats.ttest_ind(a.likert_ai_usefulness, b.likert_ai_usefulness, equal_var=False) → t = 3.5779122389196454, p = 0.0008321311439707179
 *   a.pz.mean(), b.pz.mean() → 0.37305445074594995, -0.3730544507459503
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAnalysis } from '../runAnalysis';
import { DEFAULT_OPTIONS } from '../summary';
import { DatasetError } from '../input/datasetError';
import { plantedRows, writePlantedDataset } from '../../../tests/support/plantedPreregDataset';
import type { PreregisteredSection } from './preregisteredSection';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-prereg-analysis-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const options = { ...DEFAULT_OPTIONS, bootstrapReplicates: 200 };

describe('analyze --prereg', () => {
  const dataset = path.join(root, 'dataset');
  writePlantedDataset(dataset);

  it('applies the exclusions counting each reason and runs the planned test as scipy does on the same rows', async () => {
    const out = path.join(root, 'out');
    // 100 bootstrap replicates where the plan says 200: a deviation of this run's settings.
    await runAnalysis(dataset, out, { ...options, bootstrapReplicates: 100 }, { prereg: true });
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as { preregistered: PreregisteredSection } & Record<string, unknown>;
    expect(Object.keys(summary)[0]).toBe('preregistered');
    const p = summary.preregistered;
    expect(p.exclusions.excluded).toEqual(plantedRows().reasons);
    expect(p.exclusions).toMatchObject({ total: 72, included: 48 });
    expect(p.n_per_condition).toEqual({ 'clarify-first': { planned: 30, observed: 24 }, baseline: { planned: 30, observed: 24 } });
    expect(p.primary.test).toMatchObject({ test: 'mann_whitney', alternative: 'greater', statistic: 377, method: 'asymptotic' });
    expect(p.primary.test!.p).toBeCloseTo(0.034012645926040766, 12);
    expect(p.primary.mean_a).toBeCloseTo(0.37305445074594995, 12);
    expect(p.primary.mean_b).toBeCloseTo(-0.3730544507459503, 12);
    expect(p.primary.significant).toBe(true);
    expect(p.secondary[0]!.test!.statistic).toBeCloseTo(3.5779122389196454, 12);
    expect(p.secondary[0]!.test!.p).toBeCloseTo(0.0008321311439707179, 12);
    // The platform's deviation (deviations.csv) and this run's bootstrap count, which differs from the plan's.
    expect(p.deviations.map((d) => `${d.source} ${d.field}`)).toEqual(['platform conditions.1.temperature', 'analysis analysis.bootstrap.replicates']);
    expect(p.deviations[0]!.justification).toBe('the provider retired 0.7');
  });

  it('writes the report sections in the order Pre-registered analysis, Deviations, Exploratory', async () => {
    const out = path.join(root, 'out-report');
    await runAnalysis(dataset, out, { ...options, bootstrapReplicates: 200 }, { prereg: true });
    const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
    const headings = [...html.matchAll(/<h2[^>]*>([^<]+)<\/h2>/g)].map((m) => m[1]);
    expect(headings.slice(0, 3)).toEqual(['Pre-registered analysis', 'Deviations', 'Exploratory']);
    expect(headings.length).toBeGreaterThan(3);
    expect(html).toContain('clarify-first is more productive than baseline');
    expect(html).toMatch(/Mann–Whitney U, one-sided \(clarify-first &gt; baseline\), alpha 0\.05, on pz/);
  });

  it('changes nothing without --prereg', async () => {
    const plain = path.join(root, 'plain');
    await runAnalysis(dataset, plain, options);
    const summary = JSON.parse(fs.readFileSync(path.join(plain, 'summary.json'), 'utf8')) as Record<string, unknown>;
    expect(summary.preregistered).toBeUndefined();
    expect(fs.readFileSync(path.join(plain, 'report.html'), 'utf8')).not.toContain('Pre-registered analysis');
  });

  it('says which file is missing when the dataset has no preregistration.json', async () => {
    const bare = path.join(root, 'bare');
    fs.mkdirSync(bare);
    fs.copyFileSync(path.join(dataset, 'sessions.csv'), path.join(bare, 'sessions.csv'));
    await expect(runAnalysis(bare, path.join(root, 'bare-out'), options, { prereg: true })).rejects.toThrow(DatasetError);
    await expect(runAnalysis(bare, path.join(root, 'bare-out'), options, { prereg: true })).rejects.toThrow(/preregistration\.json: not found/);
  });
});
