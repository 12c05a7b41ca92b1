/** Small HTML helpers of the teamwork report pages: every cell escaped, numbers formatted one way. */
import { escapeHtml } from '../../../common/escapeHtml';

export const f = (v: number | null | undefined, digits = 1): string => (v === null || v === undefined ? '–' : v.toFixed(digits));
export const ci = (c: [number, number] | null | undefined): string => (c ? `[${f(c[0])}, ${f(c[1])}]` : '–');
/** "k of n (p %)" — a rate with its denominator. */
export const rate = (k: number, n: number): string => (n > 0 ? `${k} of ${n} (${((100 * k) / n).toFixed(0)} %)` : `${k} of 0`);

/** A cell that is already HTML (built from escaped parts), not text to escape. */
export class Html {
  constructor(readonly html: string) {}
}

export function table(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<unknown>>, caption?: string): string {
  const cell = (c: unknown) => (c instanceof Html ? c.html : escapeHtml(c ?? ''));
  const head = headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${cell(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table>${caption ? `<caption>${escapeHtml(caption)}</caption>` : ''}<thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<style>
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:14px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
caption{text-align:left;font-weight:600;margin-bottom:4px}svg{max-width:100%;height:auto}
.warnings{background:#fff4e5;border:1px solid #f0b060;padding:.5em 1em}.text{white-space:pre-wrap;max-width:60ch}
details{margin:.5em 0}summary{cursor:pointer}
</style></head><body>
${body}
</body></html>
`;
}

/** A file name for a task's run page (task ids are already [a-z0-9_-]; anything else is replaced). */
export const runPageName = (task: string): string => `${task.replace(/[^a-z0-9_-]/gi, '_')}.html`;
