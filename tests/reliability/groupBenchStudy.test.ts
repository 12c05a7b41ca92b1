/**
 * The bench's group mode (bench/groupLoad.ts) runs a study it writes from studies/group-demo.yaml: groups of exactly
 * G people and K agents. The written file must pass the same validation as any study file, with the sizes asked for.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GROUP_BENCH_STUDY, groupBenchStudy } from '../../bench/groupLoad';
import { loadConfig } from '../../lib/studyFiles/studyConfig';
import { ROOT } from '../support/integrationHarness';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function load(size: number, agents: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'tandem-group-bench-study-'));
  dirs.push(dir);
  cpSync(path.join(ROOT, 'studies'), path.join(dir, 'studies'), { recursive: true });
  writeFileSync(path.join(dir, 'studies', `${GROUP_BENCH_STUDY}.yaml`), groupBenchStudy(size, agents));
  return loadConfig({ studiesDir: path.join(dir, 'studies'), surveysDir: path.join(ROOT, 'surveys') }).studies.get(GROUP_BENCH_STUDY)!;
}

describe('the group bench study', () => {
  it.each([
    [3, 1],
    [4, 2],
    [2, 0],
  ])('holds groups of exactly %i people with %i agent(s), released at the lobby timeout', (size, agents) => {
    const condition = load(size, agents).conditions[0]!;
    expect(condition.group?.size).toEqual({ min: size, max: size });
    expect(condition.group?.lobby.on_timeout).toBe('release');
    expect((condition.agents ?? []).map((a) => a.name)).toEqual(Array.from({ length: agents }, (_, i) => (i === 0 ? 'Facilitator' : `Agent ${i + 1}`)));
  });
});
