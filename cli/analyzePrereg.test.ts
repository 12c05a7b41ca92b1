/**
 * `npm run analyze -- <dataset> --prereg` as a process (tsx): a run whose λ differs from the locked plan records the
 * deviation in the study's SQLite database named by --data-dir (seen by `npm run prereg -- status`), once; with no
 * database in DATA_DIR it writes the dataset's deviations.analysis.csv and says on stderr that the deviations are not
 * in the study's store.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyVisualizationStudy } from '../tests/support/preregistrationFixture';
import { writePlantedDataset } from '../tests/support/plantedPreregDataset';
import { nodeArgsFor } from '../tests/support/testEntries';

const ROOT = path.resolve(import.meta.dirname, '..');
const files = copyVisualizationStudy();
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-analyze-prereg-cli-'));
const dataDir = path.join(root, 'data');
afterAll(() => {
  files.remove();
  fs.rmSync(root, { recursive: true, force: true });
});

const cli = (script: string, args: string[], env: Record<string, string>) => {
  const r = spawnSync(process.execPath, [...nodeArgsFor(path.join(ROOT, 'cli', script)), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', STUDIES_DIR: files.studiesDir, SURVEYS_DIR: files.surveysDir, ...env },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe('npm run analyze -- --prereg', () => {
  it('records the run\'s deviation in the study database given by --data-dir, once; without one, in the dataset', () => {
    expect(cli('prereg.ts', ['lock', '--study', 'visualization'], { DATA_DIR: dataDir }).code).toBe(0);
    const dataset = path.join(root, 'dataset');
    writePlantedDataset(dataset);
    fs.copyFileSync(path.join(dataDir, 'preregistrations/visualization.json'), path.join(dataset, 'preregistration.json'));
    // The plan: λ 0.5, 2000 replicates, seed 1. This run: λ 0.3 and 2000 replicates (fast enough on 72 sessions).
    const flags = [dataset, '--prereg', '--lambda', '0.3', '--bootstrap', '2000', '--out', path.join(root, 'out')];
    const nowhere = path.join(root, 'empty');
    const run = cli('analyze.ts', [...flags, '--data-dir', dataDir], { DATA_DIR: nowhere });
    expect(run.stderr).not.toMatch(/not recorded in the study's store/);
    expect(run.code).toBe(0);
    const status = () => cli('prereg.ts', ['status', '--study', 'visualization'], { DATA_DIR: dataDir }).stdout;
    expect(status().match(/: this analyze run used analysis\.lambda = 0\.3, the plan 0\.5/g)).toHaveLength(1);
    expect(cli('analyze.ts', [...flags, '--data-dir', dataDir], { DATA_DIR: nowhere }).code).toBe(0);
    expect(status().match(/analysis\.lambda/g)).toHaveLength(1);
    expect(fs.existsSync(path.join(dataset, 'deviations.analysis.csv'))).toBe(false);

    const fallback = cli('analyze.ts', flags, { DATA_DIR: nowhere });
    expect(fallback.code).toBe(0);
    expect(fallback.stderr).toMatch(/analyze: warning: this run's deviations from the plan were not recorded in the study's store \(no database at .*empty.*\); they are in .*deviations\.analysis\.csv/);
    expect(fs.readFileSync(path.join(dataset, 'deviations.analysis.csv'), 'utf8')).toMatch(/analysis_settings,[^\n]*,analysis\.lambda,/);
  }, 120_000);
});
