import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { compareExpected } from './support/compareExpected';
import { nodeArgsFor } from '../support/testEntries';

const root = fileURLToPath(new URL('../../', import.meta.url));
const fixture = join(root, 'tests/fixtures/analysis-reference');
const expected = JSON.parse(readFileSync(join(fixture, 'expected.json'), 'utf8')) as Record<string, unknown>;

function analyze(args: string[]) {
  const r = spawnSync(process.execPath, [...nodeArgsFor(join(root, 'cli/analyze.ts')), ...args], { cwd: root, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function copyFixture(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tandem-analyze-'));
  for (const f of ['sessions.csv', 'annotations.csv']) cpSync(join(fixture, f), join(dir, f));
  return dir;
}

describe('npm run analyze (spawned CLI)', () => {
  it('writes productivity.csv, summary.json and report.html matching the scipy reference', () => {
    const data = copyFixture();
    const out = join(data, 'out');
    const r = analyze([data, '--out', out, '--lambda', '0.5', '--bootstrap', '200']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['productivity.csv', 'report.html', 'summary.json']);

    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Record<string, unknown>;
    expect(compareExpected(expected, summary).slice(0, 10)).toEqual([]);
    expect(summary.bootstrap).toMatchObject({ replicates: 200, seed: 1 });

    const rows = parse(readFileSync(join(out, 'productivity.csv'), 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(rows[0]!)).toEqual(['session_id', 'task', 'quality', 'cost', 'z_quality', 'z_cost', 'pz', 'quadrant']);
    expect(rows).toHaveLength(155);
    const sessions = expected.sessions as Record<string, Record<string, number | string>>;
    for (const row of rows) {
      const e = sessions[row.session_id!];
      if (!e) {
        expect(row.quality).toBe('');
        expect(row.pz).toBe('');
        continue;
      }
      const actual = { cost: Number(row.cost), z_quality: Number(row.z_quality), z_cost: Number(row.z_cost), pz: Number(row.pz), quadrant: row.quadrant };
      expect(compareExpected(e, actual, row.session_id)).toEqual([]);
    }

    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html.match(/<svg/g)?.length).toBeGreaterThanOrEqual(5);
    expect(html).not.toMatch(/<script|<link|src=["']https?:|href=["']https?:/i);
  });

  it('defaults --out to the dataset directory and honours --cost', () => {
    const data = copyFixture();
    const r = analyze([data, '--cost', 'total_turns', '--bootstrap', '0']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(data, 'summary.json'), 'utf8')) as { cost_definition: string; sessions: Record<string, { cost: number }> };
    expect(summary.cost_definition).toBe('total_turns');
    expect(summary.sessions.s01_0001!.cost).toBe(19 + 20); // user_turns + agent_turns of s01_0001
  });

  it('rejects bad flags with usage and writes nothing', () => {
    const data = copyFixture();
    for (const args of [['--cost', 'dollars']]) {
      const r = analyze([data, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/usage: npm run analyze/);
    }
    expect(readdirSync(data).sort()).toEqual(['annotations.csv', 'sessions.csv']);
  });

  it('stops on a bad cell with file, line and column, and writes nothing', () => {
    const data = copyFixture();
    const lines = readFileSync(join(data, 'sessions.csv'), 'utf8').split('\n');
    const cells = lines[4]!.split(',');
    cells[5] = 'lots'; // agent_tokens of line 5
    lines[4] = cells.join(',');
    writeFileSync(join(data, 'sessions.csv'), lines.join('\n'));
    const out = join(data, 'out');
    const r = analyze([data, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('sessions.csv, line 5, column "agent_tokens": not a number (got "lots")');
    expect(readdirSync(data).sort()).toEqual(['annotations.csv', 'sessions.csv']);
  });

  it('prints summary.json warnings on stderr and still writes the outputs (one-session task, zero variance)', () => {
    const data = mkdtempSync(join(tmpdir(), 'tandem-analyze-warn-'));
    for (const f of ['sessions.csv', 'annotations.csv']) cpSync(join(fixture, 'heldout-seed2', f), join(data, f));
    const r = analyze([data, '--out', join(data, 'out'), '--bootstrap', '0']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('analyze: warning: task(s) with one scored session: solo');
    expect(r.stderr).toContain('analyze: warning: task(s) whose quality does not vary: flat');
    const summary = JSON.parse(readFileSync(join(data, 'out', 'summary.json'), 'utf8')) as { warnings: string[] };
    expect(r.stderr.trim().split('\n')).toHaveLength(summary.warnings.length);
    const rows = parse(readFileSync(join(data, 'out', 'productivity.csv'), 'utf8'), { columns: true }) as Array<Record<string, string>>;
    const solo = rows.find((row) => row.task === 'solo')!;
    expect([solo.quality, solo.z_quality, solo.pz, solo.quadrant]).toEqual([solo.quality, '', '', '']);
    expect(solo.quality).not.toBe('');
  });

  it('reports an output directory it cannot create', () => {
    const data = copyFixture();
    writeFileSync(join(data, 'blocker'), 'a file, not a directory');
    const r = analyze([data, '--out', join(data, 'blocker', 'out'), '--bootstrap', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^analyze: cannot write to .*blocker\/out: ENOTDIR/);
  });
});
