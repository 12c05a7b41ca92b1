/**
 * Test helper shared by the judge and annotator tests: registers beforeEach/afterEach hooks that
 * start a local fake OpenAI-compatible server and make a fresh temp dir (closing and removing both
 * after each test). Read the fields inside tests: they are replaced for every test.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions } from './fakeOpenAI';
import { openFileReplyCache } from '../../lib/storage';
import type { ModelReplyCache } from '../../lib/storage';
import { OpenAIProvider } from '../../lib/llm/openaiProvider';
import { CachedModelClient } from '../../research/judge/cachedModelClient';

/** The small exported dataset (3 sessions with artifacts, 1 without) the judge and annotator tests run on. */
export const DATASET_FIXTURE = join(import.meta.dirname, '../../research/judge/fixtures/dataset');

export interface FakeModelBed {
  fake: FakeOpenAI;
  dir: string;
}

function fakeModelHooks<B extends FakeModelBed>(dirPrefix: string, fakeOptions: FakeOpenAIOptions, setUp: (bed: FakeModelBed) => B, tearDown?: (bed: B) => void): B {
  const bed = {} as B;
  beforeEach(async () => {
    const fake = await startFakeOpenAI(fakeOptions);
    Object.assign(bed, setUp({ fake, dir: mkdtempSync(join(tmpdir(), dirPrefix)) }));
  });
  afterEach(async () => {
    tearDown?.(bed);
    await bed.fake.close();
    rmSync(bed.dir, { recursive: true, force: true });
  });
  return bed;
}

export interface CachedClientBed extends FakeModelBed {
  cache: ModelReplyCache;
  /** A CachedModelClient over the real OpenAIProvider pointed at the fake server, using `cache`. */
  newClient(): CachedModelClient;
}

/** Fake server + temp dir + a reply cache (<dir>/cache.sqlite) for runJudge / runAnnotate tests. */
export function cachedClientBed(dirPrefix: string, fakeOptions: FakeOpenAIOptions = {}): CachedClientBed {
  return fakeModelHooks(
    dirPrefix,
    fakeOptions,
    ({ fake, dir }) => {
      const cache = openFileReplyCache(join(dir, 'cache.sqlite'));
      const newClient = () => {
        const provider = new OpenAIProvider({ baseURL: fake.url, apiKey: 'test-key', timeoutMs: 5000, maxAttempts: 2, backoffBaseMs: 5, backoffMaxMs: 20 });
        return new CachedModelClient(provider, { name: provider.name, url: provider.baseURL }, cache);
      };
      return { fake, dir, cache, newClient };
    },
    (bed) => void bed.cache.close(),
  );
}

export interface DatasetCliBed extends FakeModelBed {
  /** Environment for a CLI child process that points the provider at the fake server. */
  env: Record<string, string>;
}

/** Fake server + a temp copy of DATASET_FIXTURE (`dir`) for tests that run a CLI on a dataset. */
export function datasetCliBed(dirPrefix: string, fakeOptions: FakeOpenAIOptions = {}): DatasetCliBed {
  return fakeModelHooks(dirPrefix, fakeOptions, ({ fake, dir }) => {
    cpSync(DATASET_FIXTURE, dir, { recursive: true });
    return { fake, dir, env: { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'test-key' } };
  });
}
