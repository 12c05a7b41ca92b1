import type { SessionTable } from '../input/sessionsFile';
import type { Analysis } from '../summary';
import { quadrantOrNull } from '../productivity/withinTaskZ';

export const PRODUCTIVITY_COLUMNS = ['session_id', 'task', 'quality', 'cost', 'z_quality', 'z_cost', 'pz', 'quadrant'];

/**
 * productivity.csv (contract): one row per session in sessions.csv order; unscored sessions keep empty
 * quality, z, pz and quadrant; so does z, pz and quadrant of a task's only scored session. Numbers are written in full precision (shortest round-trip form).
 */
export function productivityCsv(sessions: SessionTable, analysis: Analysis): string {
  const { cost, productivity: p } = analysis;
  const lines: string[] = [PRODUCTIVITY_COLUMNS.join(',')];
  for (let i = 0; i < sessions.ids.length; i++) {
    const scored = !Number.isNaN(sessions.quality[i]!);
    const id = csvText(sessions.ids[i]!);
    const task = csvText(sessions.tasks[i]!);
    lines.push(
      scored
        ? `${id},${task},${sessions.quality[i]},${cost[i]},${cell(p.zQuality[i]!)},${cell(p.zCost[i]!)},${cell(p.pz[i]!)},${quadrantOrNull(p.zQuality[i]!, p.zCost[i]!) ?? ''}`
        : `${id},${task},,${cost[i]},,,,`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** A number, or an empty cell when undefined (a task's only scored session has no z). */
function cell(x: number): string {
  return Number.isNaN(x) ? '' : String(x);
}

/** RFC 4180 quoting when the text needs it. */
function csvText(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
