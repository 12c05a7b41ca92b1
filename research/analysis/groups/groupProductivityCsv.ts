/**
 * group_productivity.csv: one row per analysed group (summary.json.groups.groups in group id order), written beside
 * productivity.csv only when the dataset has group conditions. Empty cells where summary.json has null.
 */
import type { GroupSection } from './groupSection';

export const GROUP_PRODUCTIVITY_COLUMNS = [
  'group_id', 'task', 'condition', 'size', 'people_tokens', 'agent_tokens', 'edits', 'quality', 'n_judged_members', 'cost', 'z_quality', 'z_cost', 'pz', 'quadrant',
] as const;

const cell = (v: string | number | null): string => (v === null ? '' : typeof v === 'number' ? String(v) : /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

export function groupProductivityCsv(section: GroupSection): string {
  const lines: string[] = [GROUP_PRODUCTIVITY_COLUMNS.join(',')];
  for (const [id, g] of Object.entries(section.groups)) {
    lines.push([id, g.task, g.condition, g.size, g.people_tokens, g.agent_tokens, g.edits, g.quality, g.n_judged_members, g.cost, g.z_quality, g.z_cost, g.pz, g.quadrant].map(cell).join(','));
  }
  return `${lines.join('\n')}\n`;
}
