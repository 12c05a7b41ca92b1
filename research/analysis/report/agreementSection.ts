import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { AgreementReport } from '../agreement/runAgreement';
import { DatasetError } from '../input/datasetError';
import { fmt, htmlTable } from './tables';

// agreement.json is read only for the report: check the parts shown, keep the rest as is
const estimate = z.object({ value: z.number().nullable() }).passthrough();
const interval = z.object({ lower: z.number(), upper: z.number() }).passthrough().nullable().optional();
const agreementSchema = z
  .object({
    scores: z.array(
      z
        .object({
          rater_a: z.string(),
          rater_b: z.string(),
          n: z.number(),
          spearman: z.object({ value: z.number().nullable(), p: z.number().nullable() }).passthrough(),
          kappa: z.object({ n: z.number(), quadratic: estimate }).passthrough(),
          icc: z.object({ a1: estimate }).passthrough(),
          icc_ci95: z.object({ a1: interval }).passthrough(),
          spearman_ci95: interval,
        })
        .passthrough(),
    ),
    notes: z.array(z.string()),
  })
  .passthrough();

/** agreement.json written by `npm run agreement` into the dataset directory, or null when absent. */
export function readAgreementReport(datasetDir: string): AgreementReport | null {
  const path = join(datasetDir, 'agreement.json');
  if (!existsSync(path)) return null;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new DatasetError('agreement.json', null, null, `invalid JSON (${(error as Error).message})`);
  }
  const parsed = agreementSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new DatasetError('agreement.json', null, issue.path.join('.') || null, issue.message);
  }
  return parsed.data as unknown as AgreementReport;
}

/** The report's agreement section: judge/human score agreement per pair and reliability across raters. */
export function agreementHtml(report: AgreementReport): string {
  const ci = (c: { lower: number; upper: number } | null | undefined) => (c ? `[${fmt(c.lower)}, ${fmt(c.upper)}]` : '–');
  const rows = report.scores.map((s) => [
    s.rater_a,
    s.rater_b,
    s.n,
    fmt(s.spearman.value),
    ci(s.spearman_ci95),
    fmt(s.spearman.p, 'p'),
    fmt(s.kappa.quadratic.value),
    ci(s.kappa_ci95?.quadratic),
    fmt(s.icc.a1.value),
    ci(s.icc_ci95.a1),
  ]);
  const parts = [`<h2>Agreement of the judge with human raters</h2><p class="note">From agreement.json (npm run agreement). Spearman and κ intervals: percentile bootstrap over sessions; ICC interval: F-based (McGraw &amp; Wong).</p>`];
  if (rows.length) parts.push(htmlTable(['rater a', 'rater b', 'n', 'Spearman ρ', '95% CI', 'p', 'κ quadratic', '95% CI', 'ICC(A,1)', '95% CI'], rows));
  const rel = report.reliability;
  if (rel) {
    parts.push(
      htmlTable(
        ['statistic', 'n', 'value'],
        [
          ...(['nominal', 'ordinal', 'interval'] as const).map((l) => [`Krippendorff α (${l})`, rel.units, fmt(rel.krippendorff_alpha[l].value)]),
          ["Fleiss' κ", rel.fleiss_kappa.n, fmt(rel.fleiss_kappa.kappa.value)],
        ],
        `Reliability across ${rel.raters.join(', ')}`,
      ),
    );
  }
  if (report.notes.length) parts.push(`<ul class="note">${report.notes.map((n) => `<li>${escape(n)}</li>`).join('')}</ul>`);
  return parts.join('\n');
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
