/** Number and time formatting for the dashboard (the researcher's locale). */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

export const formatTime = (ms: number | null): string => (ms === null ? '—' : dateTime.format(ms));

/** Time of day only, for events of today; the full date otherwise. */
export function formatClock(ms: number | null, now = Date.now()): string {
  if (ms === null) return '—';
  return new Date(ms).toDateString() === new Date(now).toDateString() ? timeOnly.format(ms) : dateTime.format(ms);
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  if (h > 0) return `${h} h ${String(m).padStart(2, '0')} min`;
  return m > 0 ? `${m} min ${sec} s` : `${s % 60} s`;
}

/** Short latencies: "420 ms", "1.8 s"; longer ones as durations. */
export function formatLatency(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  return formatDuration(ms);
}

/** "12 s ago", "3 min ago", … relative to `now`. */
export function formatAgo(ms: number, now: number): string {
  const d = Math.max(0, now - ms);
  if (d < 5_000) return 'just now';
  return `${formatDuration(d)} ago`;
}

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
export const formatCount = (n: number): string => integer.format(n);

/** Signed, two decimals (Pz and z scores): "+0.42", "−1.30". */
export function formatSigned(x: number | null): string {
  if (x === null) return '—';
  const s = Math.abs(x).toFixed(2);
  return x > 0 ? `+${s}` : x < 0 ? `−${s}` : s;
}

/** Human words for the stored enum values. */
export const STEP_LABELS: Record<string, string> = {
  consent: 'consent',
  instructions: 'instructions',
  workspace: 'workspace',
  survey: 'survey',
  complete: 'complete',
};
export const OUTCOME_LABELS: Record<string, string> = {
  active: 'in progress',
  completed: 'completed',
  declined: 'declined',
  timed_out: 'timed out',
};
export const outcomeLabel = (status: string): string => OUTCOME_LABELS[status] ?? status.replace(/_/g, ' ');
