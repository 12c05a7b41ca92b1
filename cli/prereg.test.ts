/**
 * `npm run prereg` as a process (tsx), on a temp copy of the visualization study and a fresh SQLite data folder:
 * lock writes preregistration.json, a second lock says nothing changed, a plan naming a condition the study lacks is
 * refused with file:line: field and exit 1, a bad command line exits 2 naming what is wrong.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PreregistrationFile } from '../common/preregistration';
import { copyVisualizationStudy } from '../tests/support/preregistrationFixture';
import { nodeArgsFor } from '../tests/support/testEntries';

const ROOT = path.resolve(import.meta.dirname, '..');
const files = copyVisualizationStudy();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-prereg-cli-'));
afterAll(() => {
  files.remove();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const prereg = (...args: string[]) => {
  const r = spawnSync(process.execPath, [...nodeArgsFor(path.join(ROOT, 'cli/prereg.ts')), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, STUDIES_DIR: files.studiesDir, SURVEYS_DIR: files.surveysDir },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe('npm run prereg', () => {
  it('locks, then says nothing changed; status lists the version', () => {
    const first = prereg('lock', '--study', 'visualization');
    expect(first.stderr).not.toMatch(/Error/);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^visualization: locked version 1\n/);
    const written = PreregistrationFile.parse(JSON.parse(fs.readFileSync(path.join(dataDir, 'preregistrations/visualization.json'), 'utf8')));
    expect(written.versions).toHaveLength(1);
    const again = prereg('lock', '--study', 'visualization');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already locked as version 1: the plan and the study are unchanged, nothing was stored/);
    const status = prereg('status', '--study', 'visualization');
    expect(status.stdout).toMatch(/version 1 locked .* by cli/);
  }, 60_000);

  it('refuses a plan naming a condition the study lacks, with file:line: field', () => {
    files.edit(files.planFile, 'a: clarify-first\n    b: baseline', 'a: clarify-first\n    b: control');
    const line = fs.readFileSync(files.planFile, 'utf8').split('\n').findIndex((l) => l.includes('b: control')) + 1;
    const r = prereg('lock', '--study', 'visualization');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`visualization.prereg.yaml:${line}: primary.comparison.b: the study "visualization" has no condition "control"`);
    files.edit(files.planFile, 'b: control', 'b: baseline');
  }, 30_000);

  it('exits 2 on a bad command line', () => {
    const r = prereg('lock', '--study', 'Not An Id');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--study: must be a study id/);
    expect(prereg('unlock', '--study', 'visualization').code).toBe(2);
  }, 30_000);
});
