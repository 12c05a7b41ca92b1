/**
 * `npm run simulate -- --url … --study <id> --participants N --agent-participants offline` as a process against a
 * real server in pilot: the offline demo model plays the people (no key, no network), the run reports who played
 * them and 0 lost, and the flags are validated by name.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFlags } from '../../cli/simulate';
import { groupStudyDirs } from '../support/groupTestStudies';
import { ROOT, startTestServer, type TestServer } from '../support/integrationHarness';
import { nodeArgsFor } from '../support/testEntries';

const run = promisify(execFile);

describe('simulate --agent-participants', () => {
  let t: TestServer;
  const dirs = groupStudyDirs();
  beforeAll(async () => {
    t = await startTestServer({ studiesDir: dirs.studiesDir, surveysDir: dirs.surveysDir, joinRateLimitPerMinute: 10_000, initialStudyStatus: 'pilot' });
  });
  afterAll(async () => {
    await t?.close();
    dirs.cleanup();
  });

  it('validates the new flags by name', () => {
    const base = ['--url', 'http://a', '--study', 'x', '--participants', '3'];
    expect(parseFlags([...base, '--agent-participants', 'offline'])['agent-participants']).toBe('offline');
    expect(() => parseFlags([...base, '--agent-participants', 'bad model!'])).toThrow(/--agent-participants: .*model name/);
    expect(() => parseFlags([...base, '--agent-participants', 'm', '--agent-base-url', 'nope'])).toThrow(/--agent-base-url/);
    expect(() => parseFlags([...base, '--agent-base-url', 'http://127.0.0.1:1/v1'])).toThrow('--agent-base-url: needs --agent-participants <model>');
  });

  it('runs a group study with the offline demo model playing the people', async () => {
    const { stdout, stderr } = await run(
      process.execPath,
      [...nodeArgsFor('cli/simulate.ts'), '--url', t.server.url, '--study', 'group-room', '--participants', '3', '--turns', '2', '--think-ms', '0', '--agent-participants', 'offline', '--timeout-s', '60'],
      { cwd: ROOT, env: { ...process.env, OPENAI_API_KEY: '' }, timeout: 120_000 },
    );
    expect(stdout).toMatch(/grouped: +3\/3 in 1 groups/);
    expect(stdout).toMatch(/completed: +3/);
    expect(stdout).toMatch(/6 sent; \d+\/\d+ deliveries, 0 lost/);
    expect(stdout).toContain('people played by: offline/tandem-offline-demo-1');
    expect(stderr).not.toContain('not flagged simulated');
    const people = (await t.server.store.sessions.listByStudy('group-room')).filter((s) => s.status === 'completed');
    expect(people).toHaveLength(3);
  }, 150_000);

  // Three people fill the group at once (size 2–3), so the run does not wait out the 30 s lobby.
  it('warns that a live study\'s sessions are not flagged simulated', async () => {
    await t.server.store.studies.setStatus('group-release', 'live', Date.now());
    const { stderr } = await run(
      process.execPath,
      [...nodeArgsFor('cli/simulate.ts'), '--url', t.server.url, '--study', 'group-release', '--participants', '3', '--turns', '1', '--think-ms', '0', '--group', '--timeout-s', '60'],
      { cwd: ROOT, env: { ...process.env, OPENAI_API_KEY: '' }, timeout: 120_000 },
    ).catch((error: { stderr: string }) => error);
    expect(stderr).toContain('simulate: warning: study group-release is live, not pilot: its sessions are real data and are not flagged simulated');
  }, 150_000);
});
