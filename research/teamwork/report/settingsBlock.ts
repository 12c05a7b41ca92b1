/**
 * The report's settings block: for each model the settings its runs recorded (temperature, max tokens, seeds,
 * judges, partner, version, models-file hash, endpoints without keys) or "settings unknown", the task hashes,
 * and when the runs were made.
 */
import type { RunSettings, TeamworkRun } from '../../../common/teamworkRun';
import { table } from './htmlBits';

const KEYS = ['temperature', 'max_tokens', 'seeds', 'referee', 'second_rater', 'third_rater', 'partner', 'tandem_version', 'models_file_hash'] as const;

function distinctSettings(runs: readonly TeamworkRun[]): RunSettings[] {
  const seen = new Map<string, RunSettings>();
  for (const r of runs) if (r.settings) seen.set(JSON.stringify(KEYS.map((k) => r.settings![k] ?? null)), r.settings);
  return [...seen.values()];
}

export function settingsBlock(runs: readonly TeamworkRun[], models: readonly string[]): string {
  const rows = models.flatMap((m) => {
    const mine = runs.filter((r) => r.model === m);
    const unknown = mine.filter((r) => !r.settings).length;
    const rows: unknown[][] = distinctSettings(mine).map((s) => [
      m, ...KEYS.map((k) => (k === 'models_file_hash' && s[k] ? s[k]!.slice(0, 12) : (s[k] ?? '–'))),
      Object.entries(s.endpoints ?? {}).map(([name, url]) => `${name}: ${url ?? 'offline'}`).join('\n'),
    ]);
    if (unknown > 0) rows.push([m, `settings unknown (${unknown} run${unknown === 1 ? '' : 's'})`, ...KEYS.slice(1).map(() => ''), '']);
    return rows;
  });
  const hashes = new Map<string, Set<string>>();
  for (const r of runs) hashes.set(r.task, (hashes.get(r.task) ?? new Set()).add(r.task_hash ?? 'unknown'));
  const started = runs.flatMap((r) => (r.started_at ? [r.started_at] : [])).sort();
  const finished = runs.flatMap((r) => (r.finished_at ? [r.finished_at] : [])).sort();
  const when = started.length ? `Runs made ${started[0]} – ${finished.at(-1) ?? started.at(-1)}.` : 'Run dates unknown.';
  return (
    `<h2>Settings</h2><p>${when} Report generated ${new Date().toISOString()}.</p>` +
    table(['model', ...KEYS, 'endpoints (no keys)'], rows) +
    `<details><summary>Task hashes (${hashes.size} tasks)</summary>${table(['task', 'sha256 of the task file'], [...hashes].sort(([a], [b]) => a.localeCompare(b)).map(([t, h]) => [t, [...h].join(', ')]))}</details>`
  );
}
