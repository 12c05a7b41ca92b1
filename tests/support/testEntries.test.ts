import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTestEntries, nodeArgsFor, REPO_ROOT } from './testEntries';

// The bundles the tests start children from (tests/support/testEntries.ts) must behave as the entry under tsx.
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, args, { cwd: REPO_ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', DATA_DIR: scratch, ...env } });
const scratch = mkdtempSync(path.join(tmpdir(), 'tandem-entries-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('test entry bundles', () => {
  it('the run built bundles, and a child of an entry starts from its bundle', () => {
    const args = nodeArgsFor('cli/judge.ts');
    expect(args.at(-1)).toMatch(/node_modules\/\.cache\/tandem-test-entries\/cli\/judge\.mjs$/);
    expect(nodeArgsFor('tests/support/testEntries.test.ts')).toEqual(['--import', 'tsx', path.join(REPO_ROOT, 'tests/support/testEntries.test.ts')]);
  });

  // Each case reads files relative to its module (studies, rubrics, migrations, package.json) or fails on a flag.
  it.each([
    ['cli/judge.ts', ['--samples', 'x', '--study', 'visualization']],
    ['cli/teamwork.ts', ['check', 'teamwork/tasks/suite/info-allergy-order.yaml', '--message', 'FINAL: no idea']],
    ['cli/simulate.ts', ['--url', 'http://127.0.0.1:9', '--participants', '1']], // runs only as the main module (process.argv[1])
  ])('%s %j prints and exits the same from its bundle as under tsx', (entry, cliArgs) => {
    const bundled = run([...nodeArgsFor(entry), ...cliArgs]);
    const tsx = run(['--import', 'tsx', entry, ...cliArgs]);
    expect(bundled.status).toBe(tsx.status);
    expect(bundled.stdout).toBe(tsx.stdout);
    expect(bundled.stderr.replace(/\/work\/\S+/g, '<path>')).toBe(tsx.stderr.replace(/\/work\/\S+/g, '<path>'));
  });

  it('an entry whose sources changed after the build runs through tsx', async () => {
    const dir = path.join(scratch, 'entries');
    await buildTestEntries(dir, ['cli/prereg.ts']);
    expect(nodeArgsFor('cli/prereg.ts', [], dir).at(-1)).toBe(path.join(dir, 'cli/prereg.mjs'));
    const manifestFile = path.join(dir, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { builtAt: number };
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, builtAt: 0 })); // every input is now newer
    await new Promise((r) => setTimeout(r, 1100)); // past the once-a-second re-check
    expect(nodeArgsFor('cli/prereg.ts', [], dir)).toEqual(['--import', 'tsx', path.join(REPO_ROOT, 'cli/prereg.ts')]);
  });
});
