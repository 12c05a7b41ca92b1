import type { SessionTable } from '../input/sessionsFile';
import type { Analysis } from '../summary';
import { quadrantOf } from '../productivity/withinTaskZ';

export const PRODUCTIVITY_COLUMNS = ['session_id', 'task', 'quality', 'cost', 'z_quality', 'z_cost', 'pz', 'quadrant'];

/**
 * productivity.csv (contract): one row per session in sessions.csv order; unscored sessions keep empty
 * quality, z, pz and quadrant. Numbers are written in full precision (shortest round-trip form).
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
        ? `${id},${task},${sessions.quality[i]},${cost[i]},${p.zQuality[i]},${p.zCost[i]},${p.pz[i]},${quadrantOf(p.zQuality[i]!, p.zCost[i]!)}`
        : `${id},${task},,${cost[i]},,,,`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** RFC 4180 quoting when the text needs it. */
function csvText(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
