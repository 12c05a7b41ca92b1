import type { StudySummary } from '../../common/admin';
import { formatCount, outcomeLabel } from './format';

const OUTCOMES = ['active', 'completed', 'declined', 'timed_out'];

/** Sessions per condition (rows) and outcome (columns); pilot sessions counted apart. */
export function CountsTable({ study }: { study: StudySummary }) {
  const n = (match: (c: StudySummary['counts'][number]) => boolean) => study.counts.filter(match).reduce((a, c) => a + c.n, 0);
  // Outcomes the server knows beyond the usual four still get a column.
  const outcomes = [...OUTCOMES, ...new Set(study.counts.map((c) => c.status).filter((s) => !OUTCOMES.includes(s)))];
  const rows = study.conditions.length > 0 ? study.conditions : [...new Set(study.counts.map((c) => c.conditionId))];
  if (rows.length === 0) return <p className="hint">This study has no conditions.</p>;
  return (
    <table className="admin-table admin-counts">
      <caption className="visually-hidden">Sessions of {study.title} by condition and outcome</caption>
      <thead>
        <tr>
          <th scope="col">condition</th>
          {outcomes.map((s) => <th scope="col" key={s} className="num">{outcomeLabel(s)}</th>)}
          <th scope="col" className="num">total</th>
          <th scope="col" className="num admin-pilot-col">pilot</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((c) => (
          <tr key={c}>
            <th scope="row">{c}</th>
            {outcomes.map((s) => <td key={s} className="num">{formatCount(n((x) => x.conditionId === c && x.status === s && !x.isPilot))}</td>)}
            <td className="num"><strong>{formatCount(n((x) => x.conditionId === c && !x.isPilot))}</strong></td>
            <td className="num admin-pilot-col">{formatCount(n((x) => x.conditionId === c && x.isPilot))}</td>
          </tr>
        ))}
      </tbody>
      {rows.length > 1 && (
        <tfoot>
          <tr>
            <th scope="row">all conditions</th>
            {outcomes.map((s) => <td key={s} className="num">{formatCount(n((x) => x.status === s && !x.isPilot))}</td>)}
            <td className="num"><strong>{formatCount(n((x) => !x.isPilot))}</strong></td>
            <td className="num admin-pilot-col">{formatCount(n((x) => x.isPilot))}</td>
          </tr>
        </tfoot>
      )}
    </table>
  );
}
