import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

// Each test spawns the CLI several times; on a loaded machine that takes minutes.
vi.setConfig({ testTimeout: 300_000 });
import type { FakeOpenAI } from '../../tests/support/fakeOpenAI';
import { startScriptedServer } from '../../tests/support/teamworkTestBed';
import { nodeArgsFor } from '../../tests/support/testEntries';

const ROOT = new URL('../..', import.meta.url).pathname;
const SUITE = join(ROOT, 'teamwork/tasks/suite');

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: NodeJS.ProcessEnv, onSpawn?: (child: ReturnType<typeof spawn>) => void): Promise<Exit> {
  const child = spawn(process.execPath, [...nodeArgsFor(join(ROOT, 'cli/teamwork.ts')), ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  onSpawn?.(child);
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

const lines = (file: string): number => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('teamwork CLI', () => {
  it('Ctrl-C keeps the finished runs; a rerun resumes; a third run makes no calls at all', async () => {
    // Paced so that Ctrl-C lands while runs remain; the resume and the third run need no pace (read per request).
    const pace = { delayMs: 40 };
    fake = await startScriptedServer({ judge: () => 'other', subject: () => 'FINAL: route 12' }, pace);
    const tasks = mkdtempSync(join(tmpdir(), 'tw-tasks-'));
    for (const f of ['info-flood-route.yaml', 'track-approved-budget.yaml']) copyFileSync(join(SUITE, f), join(tasks, f));
    const out = join(mkdtempSync(join(tmpdir(), 'tw-out-')), 'results');
    const env = { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: fake.url };
    const args = ['run', '--tasks', tasks, '--model', 'fake-model', '--seeds', '2', '--concurrency', '1', '--out', out, '--referee', 'judge-a', '--second-rater', 'judge-b'];
    const runs = join(out, 'runs.jsonl');

    const interrupted = await cli(args, env, (child) => {
      const poll = setInterval(() => {
        if (lines(runs) >= 2) {
          clearInterval(poll);
          child.kill('SIGINT');
        }
      }, 10);
    });
    expect(interrupted.stderr).toContain('interrupted');
    expect(interrupted.code).toBe(130);
    const kept = lines(runs);
    expect(kept).toBeGreaterThanOrEqual(2);
    expect(kept).toBeLessThan(12);
    pace.delayMs = 0;

    const resumed = await cli(args, env);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(`${12 - kept} runs made, ${kept} already finished`);
    expect(lines(runs)).toBe(12);
    const before = fake.requests.length;

    const again = await cli(args, env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('0 runs made, 12 already finished; 0 model calls, 0 cache hits');
    expect(fake.requests.length).toBe(before);
    const scores = JSON.parse(readFileSync(join(out, 'scores.json'), 'utf8'));
    expect(Object.keys(scores.models)).toEqual(['fake-model']);

    // score recomputes from runs.jsonl; report merges folders into a leaderboard
    const rescored = await cli(['score', out, '--replicates', '500'], {});
    expect(rescored.code).toBe(0);
    expect(rescored.stdout).toContain('fake-model:');
    const board = join(mkdtempSync(join(tmpdir(), 'tw-board-')), 'board');
    mkdirSync(board);
    const report = await cli(['report', out, '--out', board], {});
    expect(report.code).toBe(0);
    expect(readFileSync(join(board, 'leaderboard.csv'), 'utf8')).toMatch(/^rank,model,overall,ci95_low,ci95_high/);
    expect(lines(join(board, 'runs.jsonl'))).toBe(12);
  });

  it('bad flags and bad task files fail with the flag or the file and line', async () => {
    const bad = await cli(['run', '--tasks', SUITE, '--model', 'offline-steady', '--seeds', '0'], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--seeds: ');
    const missingKey = await cli(['run', '--tasks', SUITE, '--model', 'gpt-x', '--referee', 'j1', '--second-rater', 'j2', '--out', mkdtempSync(join(tmpdir(), 'tw-'))], { OPENAI_API_KEY: '' });
    expect(missingKey.code).toBe(1);
    expect(missingKey.stderr).toContain('model "gpt-x" needs OPENAI_API_KEY');
    const noTasks = await cli(['run', '--tasks', join(ROOT, 'docs'), '--model', 'offline-steady'], {});
    expect(noTasks.stderr).toMatch(/holds no task files/);
  });
});
