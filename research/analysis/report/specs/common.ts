/** Shared vega-lite settings: people-friendly numbers and a width that fits a 390 px phone screen. */
export const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

/** Tasks per small-multiple figure; more tasks continue in further figures (never pooled or dropped). */
export const TASKS_PER_FIGURE = 12;

/** Quantitative axes and legends: up to 4 significant digits, no trailing zeros ("1.667", "0.5", "12,000"). */
export const NUMBER_FORMAT = ',.4~g';

export const CONFIG = {
  axisQuantitative: { format: NUMBER_FORMAT },
  legend: { orient: 'bottom' as const, direction: 'horizontal' as const, columns: 2 },
  view: { stroke: '#ddd' },
  font: 'system-ui, sans-serif',
};

/** Panel width that, two columns wide, still reads on a phone after the SVG is scaled to the screen. */
export const PANEL_WIDTH = 170;

/** Splits task names into consecutive pages of TASKS_PER_FIGURE. */
export function taskPages(tasks: readonly string[]): string[][] {
  const pages: string[][] = [];
  for (let i = 0; i < tasks.length; i += TASKS_PER_FIGURE) pages.push(tasks.slice(i, i + TASKS_PER_FIGURE));
  return pages;
}

/** Title suffix naming the page, e.g. " (tasks 13–24 of 30)". Empty for a single page. */
export function pageTitle(page: number, pages: number, total: number): string {
  if (pages <= 1) return '';
  const from = page * TASKS_PER_FIGURE + 1;
  return ` (tasks ${from}–${Math.min(total, from + TASKS_PER_FIGURE - 1)} of ${total})`;
}
