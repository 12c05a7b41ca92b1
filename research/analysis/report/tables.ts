import { escapeHtml } from '../../../common/escapeHtml';

export type Cell = string | number | null | undefined;

/**
 * Formats a statistic for people: 3 decimals (no "-0.000"), thousands separated above 1000, costs as
 * integers or one decimal, p-values with 3–4 decimals and "< 0.0001" below that (never "0.000000").
 */
export function fmt(value: Cell, kind: 'num' | 'p' | 'int' | 'cost' = 'num'): string {
  if (value === null || value === undefined || (typeof value === 'number' && Number.isNaN(value))) return '–';
  if (typeof value === 'string') return value;
  if (kind === 'int') return String(value);
  if (kind === 'cost') return Number.isInteger(value) ? value.toLocaleString('en-US') : value.toLocaleString('en-US', { maximumFractionDigits: 1 });
  if (kind === 'p') return value < 0.0001 ? '< 0.0001' : value < 0.001 ? value.toFixed(4) : value.toFixed(3);
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  const text = value.toFixed(3);
  return Number(text) === 0 ? text.replace('-', '') : text;
}

/** A value on the data's own scale (quality levels, λ) with at most 4 significant digits: 1, 3.5, 1.667. */
export function fmtValue(value: number): string {
  return String(Number(value.toPrecision(4)));
}

/** An HTML table; every header and cell is escaped. */
export function htmlTable(headers: string[], rows: Cell[][], caption?: string): string {
  const head = `<tr>${headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr>`;
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c ?? '–')}</td>`).join('')}</tr>`).join('\n');
  return `<div class="scroll"><table>${caption ? `<caption>${escapeHtml(caption)}</caption>` : ''}<thead>${head}</thead><tbody>${body}</tbody></table></div>`;
}
