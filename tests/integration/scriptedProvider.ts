/**
 * Set-up for integration tests whose assistant is the scripted fake OpenAI server (tests/support/fakeOpenAI),
 * talked to by the real `openai` client: one fake for the test file, test servers whose provider points at
 * it, and after each test those servers closed and the fake's script and recorded requests cleared.
 *
 *   const scripted = useScriptedProvider({ timeoutMs: 30_000, maxAttempts: 1 });
 *   const t = await scripted.server({ replyTimeoutMs: 400 });
 *   scripted.fake.script(hang());
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakeOpenAI';
import type { StartServerOptions } from '../../server/app';
import { startTestServer, type TestServer } from '../support/integrationHarness';
import type { StoreEngine } from '../../lib/storage';

/** Provider settings of a test server; where it connects (the fake) is filled in. */
export type ProviderSettings = Omit<NonNullable<StartServerOptions['openai']>, 'baseURL' | 'apiKey'>;

export interface ScriptedProvider {
  /** The fake OpenAI server (started before the file's first test, so use it inside tests). */
  readonly fake: FakeOpenAI;
  /** A test server answered by the fake, closed after the test. `openai` replaces the file's provider settings. */
  server(options?: Omit<Partial<StartServerOptions>, 'openai'> & { openai?: ProviderSettings; engine?: StoreEngine }): Promise<TestServer>;
  /** Leaves `t` to the test, which closes it itself (it is no longer closed after the test). */
  release(t: TestServer): void;
}

/** Registers the file's beforeAll/afterEach/afterAll hooks; call it at the top level of a test file. */
export function useScriptedProvider(settings: ProviderSettings): ScriptedProvider {
  let fake: FakeOpenAI | undefined;
  const open: TestServer[] = [];
  beforeAll(async () => {
    fake = await startFakeOpenAI({ tokensPerSecond: 0 });
  });
  afterEach(async () => {
    for (const t of open.splice(0)) await t.close();
    fake?.reset();
  });
  afterAll(async () => {
    await fake?.close();
  });

  const started = (): FakeOpenAI => {
    if (!fake) throw new Error('the fake OpenAI server starts in beforeAll: use it inside a test');
    return fake;
  };
  return {
    get fake() {
      return started();
    },
    async server({ openai = settings, ...options } = {}) {
      const t = await startTestServer({ ...options, openai: { baseURL: started().url, apiKey: 'k', ...openai } });
      open.push(t);
      return t;
    },
    release(t) {
      const i = open.indexOf(t);
      if (i >= 0) open.splice(i, 1);
    },
  };
}
