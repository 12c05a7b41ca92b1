import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderCodebook } from './codebook';
import { columnNames, datasetFiles, SESSION_SIMULATION_COLUMNS, SESSION_TELEMETRY_COLUMNS } from './columns';
import { SESSION_GROUP_COLUMNS, SESSION_GROUP_EDIT_COLUMNS } from './groupColumns';
import { buildDataPackage } from './datapackage';
import { appVersion, buildManifest } from './manifest';
import { emptyRedactionCounts } from './redaction';

const likert = [
  { id: 'usefulness', prompt: 'The assistant | was useful', points: 5 },
  { id: 'confidence', prompt: 'I am confident', points: 7 },
];

describe('dataset documents generated from one column module', () => {
  const files = datasetFiles({ likertItems: likert, includeIdentities: false });

  it('keeps the contract column order of sessions.csv with likert columns after', () => {
    const sessions = files.find((f) => f.path === 'sessions.csv')!;
    expect(columnNames(sessions).slice(0, 13)).toEqual([
      'session_id', 'task', 'condition', 'status', 'is_pilot', 'started_at', 'submitted_at', 'duration_s',
      'user_tokens', 'agent_tokens', 'user_turns', 'agent_turns', 'quality',
    ]);
    // Likert columns follow the fixed ones; columns added in later schema versions come last, in version order:
    // consented_at (1.2.0), then the integrity-telemetry columns (1.3.0), then the group columns (1.4.0), then
    // group_edits and simulated (1.5.0).
    const names = columnNames(sessions);
    const consentedAt = names.indexOf('consented_at');
    expect(names.slice(consentedAt - 2, consentedAt + 1)).toEqual(['likert_usefulness', 'likert_confidence', 'consented_at']);
    expect(names.slice(consentedAt + 1)).toEqual([...SESSION_TELEMETRY_COLUMNS, ...SESSION_GROUP_COLUMNS, ...SESSION_GROUP_EDIT_COLUMNS, ...SESSION_SIMULATION_COLUMNS].map((c) => c.name));
    expect(names.slice(-6)).toEqual(['integrity_flags', 'group_id', 'lobby_outcome', 'lobby_wait_ms', 'group_edits', 'simulated']);
    expect(files.map((f) => f.path)).toEqual([
      'sessions.csv', 'messages.jsonl', 'events.jsonl', 'artifacts.jsonl', 'judgements.csv', 'annotations.csv', 'deviations.csv', 'groups.csv', 'group_events.jsonl',
      'group_judgements.csv',
    ]);
    expect(datasetFiles({ likertItems: [], includeIdentities: true }).at(-1)?.path).toBe('identities.csv');
  });

  it('keeps groups.csv\'s columns with quality (1.7.0) last, and lays out group_judgements.csv as judgements.csv keyed by group', () => {
    const names = (path: string) => columnNames(files.find((f) => f.path === path)!);
    expect(names('groups.csv')).toEqual([
      'group_id', 'condition', 'task', 'formed_at', 'ended_at', 'size_at_start', 'size_at_end', 'status', 'end_reason', 'agents', 'quality',
    ]);
    expect(names('judgements.csv')).toEqual(['session_id', 'rubric_id', 'rubric_hash', 'model', 'sample', 'score', 'parse_ok', 'cached', 'artifact_version', 'images']);
    expect(names('group_judgements.csv')).toEqual(['group_id', 'rubric_id', 'rubric_hash', 'model', 'sample', 'score', 'parse_ok', 'cached', 'doc_version', 'images']);
  });

  it('documents every column of every file in the codebook', () => {
    const md = renderCodebook(files, { studyId: 's1', createdAt: '2026-11-30T00:00:00.000Z' });
    for (const f of files) {
      expect(md).toContain(`## \`${f.path}\``);
      for (const c of f.columns) expect(md).toContain(`| \`${c.name}\` |`);
    }
    expect(md).toContain('The assistant \\| was useful'); // pipes escaped so the table stays intact
  });

  it('builds a Frictionless package with schemas and hashes', () => {
    const written = new Map([['sessions.csv', { path: '/x/sessions.csv', rows: 2, bytes: 10, sha256: 'ab'.repeat(32) }]]);
    const pkg = buildDataPackage(files, written, { studyId: 'Study_1', createdAt: 't', appVersion: '0.1.0' }) as {
      name: string;
      resources: { name: string; path: string; hash?: string; schema: { fields: { name: string; type: string }[] } }[];
    };
    expect(pkg.name).toBe('tandem-study_1');
    expect(pkg.resources.map((r) => r.path)).toEqual(files.map((f) => f.path));
    const sessions = pkg.resources[0]!;
    expect(sessions.hash).toBe(`sha256:${'ab'.repeat(32)}`);
    expect(sessions.schema.fields.find((f) => f.name === 'likert_confidence')?.type).toBe('integer');
  });

  it('puts app version, filters, counts and redaction totals in the manifest', () => {
    const pkgVersion = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    expect(appVersion()).toBe(pkgVersion);
    const redactions = { ...emptyRedactionCounts(), email: 2, phone: 1 };
    const m = buildManifest({
      createdAt: 't',
      filters: { studyId: 's1', includePilot: false, includeIdentities: true, includeUnconsented: false },
      study: { title: 'S', status: 'live' },
      counts: {
        sessions: 1, messages: 2, events: 3, artifacts: 1, artifact_files: 0, judgements: 0, group_judgements: 0, annotations: 0,
        identities: 1, excluded_pilot_sessions: 4, excluded_unconsented_sessions: 2, withdrawn_participants: 1,
      },
      freeText: { setting: 'omitted', answers: 0 },
      files: [],
      redactions,
      audit: { total: 0, byAction: {}, firstAt: null, lastAt: null, recent: [] },
    });
    expect(m.app.version).toBe(pkgVersion);
    expect(m.redactions.total).toBe(3);
    expect(m.filters).toEqual({ include_pilot: false, include_identities: true, include_unconsented: false, withdrawn_excluded: true });
    expect(m.counts.excluded_unconsented_sessions).toBe(2);
    expect(m.free_text).toEqual({ setting: 'omitted', answers: 0 });
  });
});
