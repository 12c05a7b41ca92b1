import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDataset } from '../../research/analysis/input/dataset';
import { analyzeDataset, DEFAULT_OPTIONS } from '../../research/analysis/summary';
import { renderReport } from '../../research/analysis/report/renderReport';
import { readAgreementReport } from '../../research/analysis/report/agreementSection';
import { launchBrowser, type LaunchedBrowser } from '../support/browser';

const heldout = fileURLToPath(new URL('../fixtures/analysis-reference/heldout-seed2/', import.meta.url));
const agreementFixture = fileURLToPath(new URL('../fixtures/agreement/', import.meta.url));
const options = { ...DEFAULT_OPTIONS, bootstrapReplicates: 100 };

/** 15 tasks of 6 sessions with averaged ratings (1.6666666666666667 …), one zero-cost session, two conditions. */
function manyTasks(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tandem-report-many-'));
  const rows = ['session_id,task,condition,quality,user_tokens,agent_tokens,user_turns,agent_turns'];
  for (let t = 0; t < 15; t++) {
    for (let j = 0; j < 6; j++) {
      const q = [1.6666666666666667, 2.3333333333333335, 3, 3.6666666666666665, 4.333333333333333, 5][(t + j) % 6];
      const cost = t === 0 && j === 0 ? 0 : 50 + ((t * 37 + j * 91) % 400);
      rows.push(`s${t}_${j},task${String(t).padStart(2, '0')},${j % 2 ? 'a' : 'b'},${q},${cost},${cost * 3},3,3`);
    }
  }
  writeFileSync(join(dir, 'sessions.csv'), `${rows.join('\n')}\n`);
  return dir;
}

describe('report.html', () => {
  let browser: LaunchedBrowser | null = null;
  afterAll(async () => browser?.close());

  it('gives every one of 15 tasks its own panel (two figures), counts zero-cost sessions and formats numbers for people', async () => {
    const data = loadDataset(manyTasks());
    const html = await renderReport(data, analyzeDataset(data, options));
    for (let t = 0; t < 15; t++) expect(html).toContain(`>task${String(t).padStart(2, '0')}<`);
    expect(html).toContain('(tasks 1–12 of 15)');
    expect(html).toContain('(tasks 13–15 of 15)');
    expect(html).not.toMatch(/pooled\b[^<]*tasks pooled/);
    expect(html).toContain('1 session(s) with cost 0');
    const text = html.replace(/<[^>]*>/g, ' '); // what a reader sees: axis labels, legends, tables
    expect(text).not.toMatch(/\d\.\d{7,}/); // no 1.6666666666666667
    expect(text).not.toMatch(/0\.000000/);
    expect(html).toContain('>1.667<');
    // without annotations the feature section says so instead of printing p = 1 and CI [0, 0]
    expect(html).toContain('No annotations.csv in the dataset');
    expect(html).not.toContain('[0.000, 0.000]');
    // the condition comparison section with its plot
    expect(html).toContain('<h2>Condition comparison</h2>');
    expect(html).toContain('Pz by condition (mean, bootstrap 95% interval)');
  });

  it('has the condition section, Fig 4 and (when agreement.json is present) the agreement section', async () => {
    const data = loadDataset(heldout);
    const agreement = readAgreementReport(join(agreementFixture)); // no agreement.json there
    expect(agreement).toBeNull();
    const dir = mkdtempSync(join(tmpdir(), 'tandem-report-agreement-'));
    writeFileSync(
      join(dir, 'agreement.json'),
      JSON.stringify({
        scores: [{ rater_a: 'judge', rater_b: 'ann', n: 12, spearman: { value: 0.61, p: 0.00002 }, spearman_ci95: { lower: 0.2, upper: 0.85, replicates: 1000 }, kappa: { n: 12, quadratic: { value: 0.5 } }, kappa_ci95: { quadratic: null }, icc: { a1: { value: 0.55 } }, icc_ci95: { a1: { lower: 0.1, upper: 0.8, p: 0.01 } } }],
        reliability: { raters: ['judge', 'ann'], units: 12, krippendorff_alpha: { nominal: { value: 0.4 }, ordinal: { value: 0.6 }, interval: { value: 0.62 } }, fleiss_kappa: { n: 12, kappa: { value: 0.41 } } },
        notes: ['a note'],
      }),
    );
    const html = await renderReport(data, analyzeDataset(data, options), { agreement: readAgreementReport(dir) });
    expect(html).toContain('Agreement of the judge with human raters');
    expect(html).toContain('&lt; 0.0001');
    expect(html).toContain('Krippendorff α (ordinal)');
    expect(html).toContain('Fig 4. Probing by Pz quartile');
    expect(html).toContain('not compared: baseline (n = 1), probe_first (n = 1)');
    expect(html).toContain('stratified_permutation');
    writeFileSync(join(dir, 'agreement.json'), '{"scores": 3}');
    expect(() => readAgreementReport(dir)).toThrow(/agreement\.json.*scores/);
  });

  it('fits a 390 px wide screen (no horizontal page scroll; wide tables scroll inside their box)', async () => {
    const data = loadDataset(heldout);
    const html = await renderReport(data, analyzeDataset(data, options));
    browser = await launchBrowser();
    const page = await browser.browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.setContent(html);
    const { scroll, widest } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      widest: Math.max(...[...document.querySelectorAll('svg')].map((s) => s.getBoundingClientRect().width)),
    }));
    expect(scroll).toBeLessThanOrEqual(390);
    expect(widest).toBeLessThanOrEqual(390);
  }, 60_000);
});
