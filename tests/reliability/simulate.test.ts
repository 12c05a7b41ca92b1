import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../support/fakeOpenAI';
import { openStore } from '../../lib/storage';
import { checkLogAgainstStore, isClean, formatReport, readJsonl } from '../harness/checkLog';
import { ServerChild } from '../harness/serverChild';
import { nodeArgsFor } from '../support/testEntries';

const run = promisify(execFile);
let fake: FakeOpenAI;
let server: ServerChild;
beforeAll(async () => {
  fake = await startFakeOpenAI({ tokensPerSecond: 500, responder: () => reply('A short helpful answer from the fake model.') });
  server = new ServerChild({ providerBaseURL: fake.url });
  await server.start();
});
afterAll(async () => {
  if (server?.alive) await server.stop();
  await server?.dispose();
  await fake?.close();
});

describe('npm run simulate (dry run of a study)', () => {
  it('drives participants end to end through the visualization study and logs what matches the database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simulate-'));
    const script = join(dir, 'lines.txt');
    writeFileSync(script, '# two chat lines\nWhat should I plot first?\nThanks, that helps.\n');
    const log = join(dir, 'sim.jsonl');
    const { stdout } = await run(process.execPath, [
      ...nodeArgsFor('cli/simulate.ts'),
      '--url', server.url, '--study', 'visualization', '--participants', '4', '--concurrency', '2',
      '--script', script, '--think-ms', '0-20', '--log', log, '--log-deltas',
    ], { timeout: 60_000 });
    expect(stdout).toMatch(/completed:\s+4\/4/);
    expect(stdout).toMatch(/errors:\s+0/);
    expect(stdout).toMatch(/chat ack latency: n=8 p50=/);

    const records = readJsonl(log);
    expect(records.filter((r) => r.kind === 'complete' && r.status === 'completed')).toHaveLength(4);
    expect(records.filter((r) => r.kind === 'upload')).toHaveLength(4); // the image field got a plot
    // Streamed fragments are logged with arrival times and add up to the stored replies.
    const deltas = records.filter((r) => r.kind === 'delta');
    expect(deltas.length).toBeGreaterThan(8);
    expect(deltas.every((d) => typeof d.t === 'number' && typeof d.replyId === 'string')).toBe(true);
    const store = await openStore({ dataDir: server.dataDir });
    try {
      const report = await checkLogAgainstStore(records, store, { expectAnswered: true });
      expect(isClean(report), formatReport(report)).toBe(true);
      expect(report.acked).toBe(8);
      expect(report.sessions).toBe(4);
      // Every streamed reply, reassembled from its logged fragments, is exactly the stored reply.
      const streamed = new Map<string, string>();
      for (const d of deltas) streamed.set(String(d.replyId), (streamed.get(String(d.replyId)) ?? '') + String(d.text));
      expect(streamed.size).toBe(8);
      for (const [replyId, text] of streamed) expect((await store.messages.get(replyId))?.text).toBe(text);
      // Each session reached completion in the database too: one artifact version, its plot, the survey.
      const sessionIds = [...new Set(records.filter((r) => r.kind === 'join').map((r) => String(r.sessionId)))];
      for (const id of sessionIds) {
        expect((await store.sessions.get(id))?.status).toBe('completed');
        const versions = (await store.artifacts.listVersions(id));
        expect(versions).toHaveLength(1);
        expect((await store.uploads.listForSession(id))).toHaveLength(1);
        expect((await store.surveyAnswers.hasAnswers(id))).toBe(true);
      }
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits with a clear message on bad flags', async () => {
    const failed = await run(process.execPath, [...nodeArgsFor('cli/simulate.ts'), '--url', server.url, '--participants', '2'], { timeout: 30_000 }).catch((e: { code: number; stderr: string }) => e);
    expect((failed as { code: number }).code).toBe(2);
    expect((failed as { stderr: string }).stderr).toContain('--study is required');
  });
});
