/** The report's first two sections under --prereg: "Pre-registered analysis" and "Deviations" (all text escaped). */
import { escapeHtml } from '../../../common/escapeHtml';
import { htmlTable } from '../report/tables';
import type { ComparisonResult, PreregisteredSection } from './preregisteredSection';

const num = (x: number | null | undefined, digits = 3): string | null => (x === null || x === undefined || Number.isNaN(x) ? null : Number(x.toPrecision(digits + 1)).toString());

const TEST_NAMES = { mann_whitney: 'Mann–Whitney U', welch_t: 'Welch t' } as const;

function resultRow(r: ComparisonResult): (string | null)[] {
  const t = r.test;
  return [r.outcome, `${r.a} vs ${r.b}`, String(r.n_a), String(r.n_b), num(r.mean_a), num(r.mean_b), num(r.diff), t ? `${t.test === 'welch_t' ? 't' : 'U'} = ${num(t.statistic, 4)}${t.df !== null ? `, df = ${num(t.df, 4)}` : ''}` : null, t ? num(t.p, 4) : null, r.significant === null ? null : r.significant ? `yes (p < ${r.alpha})` : `no (p ≥ ${r.alpha})`];
}

export function preregisteredHtml(p: PreregisteredSection): string {
  const c = p.comparison;
  const direction = c.direction === 'two-sided' ? `${c.a} differs from ${c.b}` : `${c.a} ${c.direction === 'greater' ? '>' : '<'} ${c.b}`;
  const t = p.primary.test;
  const planned = `${TEST_NAMES[c.test]}, ${c.direction === 'two-sided' ? 'two-sided' : `one-sided (${direction})`}, alpha ${c.alpha}, on ${p.outcome}`;
  const excluded = Object.entries(p.exclusions.excluded).filter(([, n]) => n > 0);
  const parts = [
    '<h2 id="preregistered">Pre-registered analysis</h2>',
    `<p>${escapeHtml(`Plan version ${p.version}, locked ${p.locked_at} (plan ${p.plan_hash.slice(0, 12)}, study ${p.study_hash.slice(0, 12)}).`)}</p>`,
    `<p><strong>Hypothesis ${escapeHtml(p.hypothesis.id)}</strong>: ${escapeHtml(p.hypothesis.text)}</p>`,
    `<p><strong>Planned test</strong>: ${escapeHtml(planned)}.</p>`,
    `<p>${escapeHtml(`Exclusions: ${p.exclusions.total} sessions, ${p.exclusions.included} kept; left out: ${excluded.length ? excluded.map(([r, n]) => `${r} ${n}`).join(', ') : 'none'}.`)}</p>`,
    htmlTable(
      ['condition', 'planned n', 'n in the test'],
      Object.entries(p.n_per_condition).map(([k, v]) => [k, String(v.planned), String(v.observed)]),
      'Sample per condition against the plan',
    ),
    htmlTable(['outcome', 'comparison', 'n a', 'n b', 'mean a', 'mean b', 'a − b', 'statistic', 'p', 'significant'], [resultRow(p.primary)], 'Primary comparison'),
    `<p><strong>Result</strong>: ${escapeHtml(t ? `${t.test === 'welch_t' ? 't' : 'U'} = ${num(t.statistic, 4)}, p = ${num(t.p, 4)} (${t.method}): ${p.primary.significant ? `supports ${direction}` : `does not support ${direction}`} at alpha ${c.alpha}.` : 'not computed (a condition has no session with the outcome).')}</p>`,
  ];
  if (p.secondary.length) parts.push(htmlTable(['outcome', 'comparison', 'n a', 'n b', 'mean a', 'mean b', 'a − b', 'statistic', 'p', 'significant'], p.secondary.map(resultRow), 'Secondary outcomes (planned)'));
  parts.push('<h2 id="deviations">Deviations</h2>');
  parts.push(
    p.deviations.length
      ? htmlTable(
          ['source', 'kind', 'file', 'field', 'what', 'justification'],
          p.deviations.map((d) => [d.source, d.kind, d.file, d.field, d.message, d.justification]),
        )
      : '<p>None recorded.</p>',
  );
  const run = p.run_deviations;
  if (run)
    parts.push(
      `<p class="note" data-testid="run-deviations">${escapeHtml(
        run.recorded_in === 'store'
          ? `This run's deviations are recorded in the study's store (${run.where}): ${run.new} new, ${run.already_recorded} already on record.`
          : `This run's deviations were not recorded in the study's store (${run.reason ?? 'unknown'}); they are in ${run.where}: ${run.new} new, ${run.already_recorded} already there.`,
      )}</p>`,
    );
  parts.push('<h2 id="exploratory">Exploratory</h2><p class="note">Everything below was not pre-registered.</p>');
  return parts.join('\n');
}
