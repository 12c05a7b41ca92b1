import { stringify } from 'csv-stringify/sync';
import type { Estimate } from '../estimate';
import type { IccInference } from '../iccInference';
import { ICC_FORMS } from '../intraclassCorrelation';
import type { LabelStatistics } from '../labelAgreement';
import type { AgreementReport } from '../runAgreement';
import { FRICTION_LABELS, GROUNDING_ACTS } from '../../../../common/labels';

const ICC_NAMES: Record<(typeof ICC_FORMS)[number], string> = {
  icc1: 'ICC(1)',
  icc1k: 'ICC(k)',
  a1: 'ICC(A,1)',
  ak: 'ICC(A,k)',
  c1: 'ICC(C,1)',
  ck: 'ICC(C,k)',
};

/** One row of agreement.csv (long format: one statistic per row). */
interface CsvRecord {
  section: 'scores' | 'groups' | 'reliability' | 'grounding' | 'friction';
  rater_a: string;
  rater_b: string;
  n: number;
  statistic: string;
  label: string;
  value: number | null;
  p: number | null;
  /** 95% confidence interval (ICC forms: F-based; Spearman and kappa: seeded bootstrap over sessions) */
  ci_lower: number | null;
  ci_upper: number | null;
  reason: string;
}

/** agreement.csv: every number of agreement.json, one per row, with the reason when it is null. */
export function agreementCsv(report: AgreementReport): string {
  const rows: CsvRecord[] = [];
  const add = (
    base: Pick<CsvRecord, 'section' | 'rater_a' | 'rater_b' | 'n'>,
    statistic: string,
    e: Estimate,
    label = '',
    inference: IccInference | null = null,
  ) =>
    rows.push({
      ...base,
      statistic,
      label,
      value: e.value,
      p: inference?.p ?? null,
      ci_lower: inference?.lower ?? null,
      ci_upper: inference?.upper ?? null,
      reason: e.reason ?? '',
    });
  for (const pair of report.scores) {
    const base = { section: 'scores', rater_a: pair.rater_a, rater_b: pair.rater_b, n: pair.n } as const;
    const sci = pair.spearman_ci95;
    rows.push({ ...base, statistic: 'spearman', label: '', value: pair.spearman.value, p: pair.spearman.p, ci_lower: sci?.lower ?? null, ci_upper: sci?.upper ?? null, reason: pair.spearman.reason ?? '' });
    for (const w of ['unweighted', 'linear', 'quadratic'] as const) {
      const ci = pair.kappa_ci95?.[w];
      rows.push({ ...base, n: pair.kappa.n, statistic: `kappa_${w}`, label: '', value: pair.kappa[w].value, p: null, ci_lower: ci?.lower ?? null, ci_upper: ci?.upper ?? null, reason: pair.kappa[w].reason ?? '' });
    }
    for (const form of ICC_FORMS) add(base, `icc_${form}`, pair.icc[form], '', pair.icc_ci95[form]);
  }
  const rel = report.reliability;
  if (rel) {
    const base = { section: 'reliability', rater_a: 'all', rater_b: rel.raters.join('+'), n: rel.units } as const;
    for (const level of ['nominal', 'ordinal', 'interval'] as const) add(base, `krippendorff_alpha_${level}`, rel.krippendorff_alpha[level]);
    add({ ...base, n: rel.fleiss_kappa.n }, 'fleiss_kappa', rel.fleiss_kappa.kappa);
  }
  for (const group of report.groups) {
    const base = { section: 'groups', rater_a: group.group, rater_b: group.raters.join('+'), n: group.n } as const;
    for (const form of ICC_FORMS) add(base, `icc_${form}`, group.icc[form], '', group.icc_ci95[form]);
  }
  for (const pair of report.labels) {
    const g = { section: 'grounding', rater_a: pair.rater_a, rater_b: pair.rater_b, n: pair.n } as const;
    add(g, 'micro_f1', pair.grounding.micro_f1);
    for (const label of GROUNDING_ACTS) labelRows(g, label, pair.grounding.labels[label], add);
    const f = { ...g, section: 'friction' } as const;
    add(f, 'kappa', pair.friction.kappa);
    add(f, 'micro_f1', pair.friction.micro_f1);
    for (const label of FRICTION_LABELS) labelRows(f, label, pair.friction.labels[label], add);
  }
  return stringify(rows, { header: true, columns: ['section', 'rater_a', 'rater_b', 'n', 'statistic', 'label', 'value', 'p', 'ci_lower', 'ci_upper', 'reason'] });
}

function labelRows<B>(base: B, label: string, s: LabelStatistics, add: (base: B, statistic: string, e: Estimate, label: string) => void) {
  add(base, 'label_kappa', s.kappa, label);
  add(base, 'label_f1', s.f1, label);
}

/** Human-readable tables for stdout. Null values print as "—"; agreement.json has the reasons. */
export function agreementTable(report: AgreementReport): string {
  const out: string[] = [];
  if (report.scores.length > 0) {
    out.push(`Score agreement on the 1–5 scale${report.judge_source ? ` (judge from ${report.judge_source})` : ''}`);
    const header = ['rater a', 'rater b', 'n', 'Spearman', 'ρ 95% CI', 'p', 'n κ', 'κ', 'κ linear', 'κ quad', 'κ quad 95% CI', ...ICC_FORMS.map((f) => ICC_NAMES[f]), 'ICC(A,1) 95% CI'];
    const rows = report.scores.map((s) => [
      s.rater_a,
      s.rater_b,
      String(s.n),
      num(s.spearman.value),
      bootInterval(s.spearman_ci95),
      pValue(s.spearman.p),
      String(s.kappa.n),
      num(s.kappa.unweighted.value),
      num(s.kappa.linear.value),
      num(s.kappa.quadratic.value),
      bootInterval(s.kappa_ci95?.quadratic ?? null),
      ...ICC_FORMS.map((f) => num(s.icc[f].value)),
      interval(s.icc_ci95.a1),
    ]);
    out.push(table(header, rows), '');
  }
  const rel = report.reliability;
  if (rel) {
    out.push(`Reliability across all score raters (${rel.raters.join(', ')})`);
    out.push(
      table(
        ['statistic', 'n', 'value'],
        [
          ...(['nominal', 'ordinal', 'interval'] as const).map((l) => [`Krippendorff α (${l})`, String(rel.units), num(rel.krippendorff_alpha[l].value)]),
          ["Fleiss' κ (sessions every rater scored)", String(rel.fleiss_kappa.n), num(rel.fleiss_kappa.kappa.value)],
        ],
        1,
      ),
      '',
    );
  }
  if (report.groups.length > 0) {
    out.push('ICC across raters (sessions scored by every rater of the group)');
    const rows = report.groups.map((g) => [
      g.group,
      g.raters.join(', '),
      String(g.n),
      ...ICC_FORMS.map((f) => num(g.icc[f].value)),
      interval(g.icc_ci95.a1),
    ]);
    out.push(table(['group', 'raters', 'n', ...ICC_FORMS.map((f) => ICC_NAMES[f]), 'ICC(A,1) 95% CI'], rows), '');
  }
  if (report.labels.length > 0) {
    out.push('Annotation agreement (utterances labelled by both)');
    out.push(
      table(
        ['rater a', 'rater b', 'n', 'grounding micro-F1', 'friction κ', 'friction micro-F1'],
        report.labels.map((l) => [l.rater_a, l.rater_b, String(l.n), num(l.grounding.micro_f1.value), num(l.friction.kappa.value), num(l.friction.micro_f1.value)]),
      ),
      '',
    );
    const pairNames = report.labels.map((l) => `${l.rater_a}–${l.rater_b}`);
    out.push('Per-label binary κ / F1');
    const perLabel = [
      ...GROUNDING_ACTS.map((label) => [`grounding:${label}`, ...report.labels.map((l) => both(l.grounding.labels[label]))]),
      ...FRICTION_LABELS.map((label) => [`friction:${label}`, ...report.labels.map((l) => both(l.friction.labels[label]))]),
    ];
    out.push(table(['label', ...pairNames], perLabel, 1), '');
  }
  if (report.notes.length > 0) out.push('Notes:', ...report.notes.map((n) => `- ${n}`), '');
  out.push('— = undefined for these data; agreement.json gives the reason. Spearman and κ intervals: percentile bootstrap over sessions (1000×, seed 1).');
  return out.join('\n');
}

/** p for people: 4 decimals, and "< 0.0001" below that (never "0.0000"). */
export function pValue(p: number | null): string {
  if (p === null) return '—';
  return p < 0.0001 ? '< 0.0001' : p.toFixed(4);
}

function bootInterval(ci: { lower: number; upper: number } | null): string {
  return ci ? `[${num(ci.lower, 2)}, ${num(ci.upper, 2)}]` : '—';
}

function interval(ci: IccInference | null): string {
  return ci ? `[${num(ci.lower, 2)}, ${num(ci.upper, 2)}]` : '—';
}

function both(s: LabelStatistics): string {
  return `${num(s.kappa.value)} / ${num(s.f1.value)}`;
}

function num(value: number | null, digits = 3): string {
  if (value === null) return '—';
  const text = value.toFixed(digits);
  return Number(text) === 0 ? text.replace('-', '') : text; // no "-0.000" from −1e-16 rounding noise
}

function table(header: string[], rows: string[][], textColumns = 2): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < textColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
