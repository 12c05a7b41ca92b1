/**
 * The report's "Groups" section in a real browser (Chromium through playwright-core) at 1280 and 390 px: the page
 * never scrolls sideways (wide group tables scroll inside their own box), the section and its tables are there, and
 * text from the data is shown as text, never as HTML.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAnalysis } from '../../research/analysis/runAnalysis';
import { DEFAULT_OPTIONS } from '../../research/analysis/summary';
import { launchBrowser, type LaunchedBrowser } from '../support/browser';
import { ROOT } from '../support/integrationHarness';

const dirs: string[] = [];
let browser: LaunchedBrowser | null = null;
afterAll(async () => {
  await browser?.close();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

async function groupReport(): Promise<string> {
  const dataset = mkdtempSync(join(tmpdir(), 'tandem-group-report-'));
  const out = mkdtempSync(join(tmpdir(), 'tandem-group-report-out-'));
  dirs.push(dataset, out);
  cpSync(join(ROOT, 'tests/fixtures/analysis-groups'), dataset, { recursive: true });
  // a condition name with markup: it must reach the page as text
  for (const file of ['sessions.csv', 'groups.csv']) {
    const path = join(dataset, file);
    writeFileSync(path, readFileSync(path, 'utf8').replaceAll(',silent,', ',"<b>silent</b> & co",'));
  }
  await runAnalysis(dataset, out, { ...DEFAULT_OPTIONS, bootstrapReplicates: 50 });
  return readFileSync(join(out, 'report.html'), 'utf8');
}

describe('the report\'s Groups section', () => {
  it.each([1280, 390])('fits a %i px wide screen and shows the data as text', async (width) => {
    const html = await groupReport();
    browser ??= await launchBrowser();
    const page = await browser.browser.newPage({ viewport: { width, height: 900 } });
    try {
      await page.setContent(html);
      const seen = await page.evaluate(() => {
        const heading = [...document.querySelectorAll('h2')].find((h) => h.textContent === 'Groups');
        const captions = [...document.querySelectorAll('caption')].map((c) => c.textContent);
        return {
          scroll: document.documentElement.scrollWidth,
          heading: heading !== undefined,
          captions,
          bold: document.querySelectorAll('b').length,
          conditionCell: [...document.querySelectorAll('td')].some((td) => td.textContent === '<b>silent</b> & co'),
        };
      });
      expect(seen.scroll).toBeLessThanOrEqual(width);
      expect(seen.heading).toBe(true);
      expect(seen.captions).toContain('Productivity per group');
      expect(seen.captions).toContain("Each member's share of the people's tokens and of the shared document's edits");
      expect(seen.bold).toBe(0);
      expect(seen.conditionCell).toBe(true);
    } finally {
      await page.close();
    }
  }, 120_000);
});
