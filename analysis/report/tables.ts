import { escapeHtml } from './escapeHtml';

export type Cell = string | number | null | undefined;

/** Formats a statistic for a table: 3 significant decimals, p-values in scientific notation when tiny. */
export function fmt(value: Cell, kind: 'num' | 'p' | 'int' | 'cost' = 'num'): string {
  if (value === null || value === undefined || (typeof value === 'number' && Number.isNaN(value))) return '–';
  if (typeof value === 'string') return value;
  if (kind === 'int') return String(value);
  if (kind === 'cost') return Number.isInteger(value) ? String(value) : value.toFixed(1);
  if (kind === 'p') return value < 0.001 ? value.toExponential(1) : value.toFixed(3);
  return Math.abs(value) >= 1000 ? value.toFixed(0) : value.toFixed(3);
}

/** An HTML table; every header and cell is escaped. */
export function htmlTable(headers: string[], rows: Cell[][], caption?: string): string {
  const head = `<tr>${headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr>`;
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c ?? '–')}</td>`).join('')}</tr>`).join('\n');
  return `<table>${caption ? `<caption>${escapeHtml(caption)}</caption>` : ''}<thead>${head}</thead><tbody>${body}</tbody></table>`;
}
