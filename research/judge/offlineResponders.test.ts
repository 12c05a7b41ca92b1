/** The offline demo judge and annotator produce well-formed, deterministic, clearly labelled output. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadAnnotationGuide } from '../annotate/guide';
import { OfflineAnnotatorProvider } from '../annotate/offlineAnnotator';
import { runAnnotate } from '../annotate/runAnnotate';
import { openFileReplyCache } from '../../lib/storage';
import { CachedModelClient } from './cachedModelClient';
import { readDatasetSessions } from './datasetSource';
import { OfflineJudgeProvider, OFFLINE_JUDGE_NAME } from './offlineJudge';
import { loadRubrics } from '../../lib/studyFiles/rubricFiles';
import { runJudge } from './runJudge';
import { judgeTargets } from './targets';

const dir = mkdtempSync(join(tmpdir(), 'tandem-offline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sessions = readDatasetSessions(join(import.meta.dirname, 'fixtures/dataset'));

describe('offline demo responders', () => {
  it('the judge replies in the judge format, deterministically, labelled offline-judge-demo', async () => {
    const targets = judgeTargets(sessions, loadRubrics());
    const settings = { model: 'any', samples: 3, concurrency: 2, temperature: 0.7, maxTokens: 300, baseSeed: 0 };
    const run = async (file: string) => {
      const cache = openFileReplyCache(join(dir, file));
      const provider = new OfflineJudgeProvider();
      const result = await runJudge(targets, settings, new CachedModelClient(provider, { name: provider.name, url: null }, cache));
      await cache.close();
      return result.samples.sort((a, b) => a.sessionId.localeCompare(b.sessionId) || a.sample - b.sample);
    };
    const a = await run('a.sqlite');
    const b = await run('b.sqlite');
    expect(a).toHaveLength(9);
    expect(a.every((s) => s.parseOk && !s.reasked && s.provider === OFFLINE_JUDGE_NAME && s.reportedModel === OFFLINE_JUDGE_NAME && s.providerUrl === null)).toBe(true);
    expect(a[0]!.rawReply).toContain('not a real evaluation');
    expect(b.map((s) => s.score)).toEqual(a.map((s) => s.score));
  });

  it('the annotator returns valid labels for every utterance in one call per session', async () => {
    const cache = openFileReplyCache(join(dir, 'annot.sqlite'));
    const provider = new OfflineAnnotatorProvider();
    const client = new CachedModelClient(provider, { name: provider.name, url: null }, cache);
    const { annotations } = await runAnnotate(sessions, { model: 'any', concurrency: 2, chunkSize: 30, contextSize: 2, maxTokens: 2000 }, loadAnnotationGuide(), client);
    await cache.close();
    expect(annotations).toHaveLength(sessions.reduce((n, s) => n + s.utterances.length, 0));
    expect(annotations.every((a) => a.method === 'batch' && a.provider === 'offline-annotator-demo')).toBe(true);
    expect(client.stats.calls).toBe(sessions.filter((s) => s.utterances.length > 0).length);
  });
});
