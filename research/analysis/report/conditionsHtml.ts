import type { ConditionSection, MetricBlock } from '../conditions/conditionSection';
import type { ConditionPoint } from './specs/conditionsByTask';
import { fmt, htmlTable, type Cell } from './tables';

export const POOLED = 'all tasks (pooled)';

/** Points for the Pz-by-condition plot: per task and pooled, each condition's mean and interval. */
export function conditionPoints(c: ConditionSection, metric = 'pz'): ConditionPoint[] {
  const out: ConditionPoint[] = [];
  const add = (task: string, block: MetricBlock | undefined) => {
    if (!block) return;
    for (const name of c.names) {
      const g = block[name];
      if (g && g.n > 0 && g.mean !== null) out.push({ task, condition: name, n: g.n, mean: g.mean, low: g.mean_ci95?.[0] ?? g.mean, high: g.mean_ci95?.[1] ?? g.mean });
    }
  };
  add(POOLED, c.pooled[metric] as MetricBlock | undefined);
  for (const [task, t] of Object.entries(c.tasks)) add(task, t[metric] as MetricBlock | undefined);
  return out;
}

/** Tables of the condition comparison: descriptives and comparisons for each metric, and quadrants. */
export function conditionTables(c: ConditionSection): string {
  const parts: string[] = [];
  const scopes: Array<[string, Record<string, unknown>]> = [[POOLED, c.pooled], ...Object.entries(c.tasks)];
  for (const metric of c.metrics) {
    const desc: Cell[][] = [];
    const comp: Cell[][] = [];
    for (const [scope, blocks] of scopes) {
      const block = blocks[metric] as MetricBlock | undefined;
      if (!block) continue;
      for (const name of c.names) {
        const g = block[name];
        if (g) desc.push([scope, name, g.n, fmt(g.mean), fmt(g.median), fmt(g.sd)]);
      }
      for (const x of block.comparisons) {
        comp.push([scope, `${x.a} − ${x.b}`, `${x.n_a} / ${x.n_b}`, fmt(x.diff), x.ci95 ? `[${fmt(x.ci95[0])}, ${fmt(x.ci95[1])}]` : '–', fmt(x.u, 'num'), fmt(x.p, 'p'), x.method ?? '–', fmt(x.p_holm, 'p'), fmt(x.cliffs_delta), fmt(x.cohen_d)]);
      }
      if (block.omnibus) comp.push([scope, `all (${block.omnibus.test})`, '', '', '', `H ${fmt(block.omnibus.h)}`, fmt(block.omnibus.p, 'p'), `df ${block.omnibus.df}`, fmt(block.omnibus.p_holm, 'p'), '', '']);
      if (block.too_few.length) comp.push([scope, `not compared: ${block.too_few.map((t) => `${t.condition} (n = ${t.n})`).join(', ')}`, '', '', '', '', '', '', '', '', '']);
    }
    parts.push(htmlTable(['scope', 'condition', 'n', 'mean', 'median', 'SD'], desc, `${metric}: per condition`));
    if (comp.length) parts.push(htmlTable(['scope', 'difference', 'n', 'diff', '95% CI', 'U', 'p', 'method', 'p (Holm)', "Cliff's δ", "Cohen's d"], comp, `${metric}: comparisons`));
  }
  const quadRows = scopes.map(([scope, blocks]) => {
    const q = (blocks as { quadrants: ConditionSection['pooled']['quadrants'] }).quadrants;
    const counts = c.names.map((n) => `${n}: ${Object.values(q.counts[n] ?? {}).join('/')}`).join('; ');
    return [scope, counts, q.test?.test ?? '–', fmt(q.test?.chi2), fmt(q.test?.p, 'p'), fmt(q.p_holm, 'p')];
  });
  parts.push(htmlTable(['scope', 'sessions per quadrant (productive/costly/cheap/unproductive)', 'test', 'χ²', 'p', 'p (Holm)'], quadRows, 'Quadrant distribution by condition'));
  return parts.join('\n');
}
