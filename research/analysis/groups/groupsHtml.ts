/** The report's "Groups" section: the group-level productivity table, each member's shares, and the condition comparison over groups. */
import { escapeHtml } from '../../../common/escapeHtml';
import { fmt, fmtValue, htmlTable } from '../report/tables';
import { conditionTables } from '../report/conditionsHtml';
import type { GroupSection } from './groupSection';

const share = (x: number | null) => (x === null ? '–' : `${(100 * x).toFixed(1)}%`);

/** How Q was obtained: an export without groups.csv quality (before schema 1.7.0) has only the members' scores. */
function qualityWording(g: GroupSection): string {
  if (g.n_quality_from_members === undefined) return "Q = the median of the members' judged quality of the shared document";
  return `Q = the judge's score of the group's shared document (median of its samples); groups without one take the median of their members' judged quality (${g.n_quality_from_members} groups)`;
}

export function groupsHtml(g: GroupSection, nSimulatedExcluded: number | null): string {
  const unseated = Object.entries(g.n_unseated).map(([outcome, n]) => `${n} ${outcome}`).join(', ');
  const intro =
    `${g.n_groups} groups (${g.n_people} people), ${g.n_scored} with a quality score. The unit is the group: ` +
    `C = Σ people's tokens + ${g.lambda} · Σ agent tokens${g.cost_definition === 'weighted' ? '' : ` (cost definition ${g.cost_definition})`}, ` +
    `${qualityWording(g)}, Pz = z(Q) − z(C) within task over groups. ` +
    (unseated ? `People of a group condition never seated in a group (left out): ${unseated}. ` : '') +
    (g.n_groups_excluded ? `${g.n_groups_excluded} group(s) left out because one of their people was (pilot, unconsented or simulated). ` : '') +
    (nSimulatedExcluded ? `${nSimulatedExcluded} simulated session(s) left out (analyse them with --include-simulated).` : '');
  const rows = Object.entries(g.groups).map(([id, r]) => [
    id, r.task, r.condition ?? '–', r.size, fmt(r.people_tokens, 'cost'), fmt(r.agent_tokens, 'cost'), fmt(r.cost, 'cost'),
    r.quality === null ? '–' : fmtValue(r.quality), fmt(r.z_quality), fmt(r.z_cost), fmt(r.pz), r.quadrant ?? '–',
  ]);
  const memberRows = Object.entries(g.groups).flatMap(([id, r]) =>
    Object.entries(r.members).map(([sid, m]) => [id, sid, fmt(m.tokens, 'cost'), share(m.token_share), m.edits === null ? '–' : m.edits, share(m.edit_share), m.quality === null ? '–' : fmtValue(m.quality)]),
  );
  const c = g.conditions;
  const comparison =
    c.names.length < 2
      ? `<p class="note">${escapeHtml(c.notes.join('; ') || 'fewer than two conditions among the groups')}</p>`
      : `<p class="note">${escapeHtml(`Condition comparison with groups as the unit (Mann–Whitney, Kruskal–Wallis over 3+ conditions; intervals from ${c.replicates} seeded bootstrap replicates, seed ${c.seed}, resampling groups within task and condition).`)}</p>${conditionTables(c)}`;
  return `<h2>Groups</h2>
<p>${escapeHtml(intro)}</p>
${g.warnings.length ? `<div class="warnings"><strong>Warnings</strong><ul>${g.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul></div>` : ''}
${htmlTable(['group', 'task', 'condition', 'people', 'people tokens', 'agent tokens', 'C', 'Q', 'z(Q)', 'z(C)', 'Pz', 'quadrant'], rows, 'Productivity per group')}
${htmlTable(['group', 'member (session)', 'tokens', 'token share', 'edits', 'edit share', 'quality'], memberRows, "Each member's share of the people's tokens and of the shared document's edits")}
<h3>Condition comparison (groups)</h3>
${comparison}`;
}
