/**
 * Helpers for the wizard tests (integration, crash, browser): a studies folder with one single-condition study
 * per assistant mode (so assignment cannot pick another condition), a /wizard console socket as a researcher,
 * and the browser tests' server whose model is a local fake OpenAI server (startServerWithFakeModel).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { parse, stringify } from 'yaml';
import { io as connect, type Socket } from 'socket.io-client';
import pino from 'pino';
import type { WizardDraftPush } from '../../common/wizard';
import { TEST_ADMIN_PASSWORD } from './adminTestServer';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions } from './fakeOpenAI';
import { startServerAndBrowser, startTempDataDirServer, type PageServer, type ServerAndBrowser } from './serverAndBrowser';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/** Folders wizardStudiesDir made for the importing test file, removed after its tests (vitest isolates each file's modules). */
const studiesDirs: string[] = [];
afterAll(() => {
  for (const dir of studiesDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** studies/wizard-demo.yaml split into woz-review (its `reviewed` condition) and woz-wizard, with overrides. */
export function wizardStudiesDir(assistant: { review?: Record<string, unknown>; wizard?: Record<string, unknown> } = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-woz-studies-'));
  studiesDirs.push(dir);
  const demo = parse(fs.readFileSync(path.join(REPO_ROOT, 'studies', 'wizard-demo.yaml'), 'utf8')) as { conditions: Array<{ id: string; assistant: Record<string, unknown> }> };
  const [reviewed, wizard] = demo.conditions;
  const write = (id: string, condition: (typeof demo.conditions)[number], over: Record<string, unknown> = {}) =>
    fs.writeFileSync(path.join(dir, `${id}.yaml`), stringify({ ...demo, conditions: [{ ...condition, assistant: { ...condition.assistant, ...over } }] }));
  write('woz-review', reviewed!, assistant.review);
  write('woz-wizard', wizard!, assistant.wizard);
  return dir;
}

export interface ConsoleSocket {
  socket: Socket;
  drafts: WizardDraftPush[];
  queueChanges: number;
  close(): void;
}

/** A researcher's /wizard socket watching a study (cookie: the login's Cookie header). */
export async function watchConsole(url: string, cookie: string, studyId: string): Promise<ConsoleSocket> {
  const socket = connect(`${url}/wizard`, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie } });
  const out: ConsoleSocket = { socket, drafts: [], queueChanges: 0, close: () => socket.disconnect() };
  socket.on('wizard:draft', (d: WizardDraftPush) => out.drafts.push(d));
  socket.on('wizard:queue', () => out.queueChanges++);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  await new Promise<void>((resolve) => socket.emit('wizard:watch', { studyId }, () => resolve()));
  return out;
}

export async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A browser test's server with its fake model; close() closes the browser, the server, then the fake model. */
export type ServerWithFakeModel = ServerAndBrowser<PageServer & { fake: FakeOpenAI }>;

/**
 * The server the wizard and chat browser tests start: a fresh temp DATA_DIR (`prefix`…), the studies in
 * `studiesDir` (e.g. wizardStudiesDir(…)) and the repository's surveys, the client built into a temp folder, the
 * real `openai` client talking to a local OpenAI-compatible server made from `model`, and the shared Chromium.
 * `adminPassword` sets ADMIN_PASSWORD to TEST_ADMIN_PASSWORD first, for tests that log in at /admin.
 */
export async function startServerWithFakeModel(options: {
  prefix: string;
  studiesDir: string;
  model: FakeOpenAIOptions;
  adminPassword?: boolean;
}): Promise<ServerWithFakeModel> {
  if (options.adminPassword) process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
  const fake = await startFakeOpenAI(options.model);
  let fakeClosed = false;
  const closeFake = async () => {
    if (fakeClosed) return;
    fakeClosed = true;
    await fake.close();
  };
  try {
    return await startServerAndBrowser({
      client: 'temp',
      startServer: async (client) => {
        const page = await startTempDataDirServer(options.prefix, {
          port: 0,
          host: '127.0.0.1',
          studiesDir: options.studiesDir,
          surveysDir: path.join(REPO_ROOT, 'surveys'),
          ...client,
          openai: { baseURL: fake.url, apiKey: 'test-key', backoffBaseMs: 10 },
          env: {},
          logger: pino({ level: 'silent' }),
        });
        return {
          ...page,
          fake,
          close: async () => {
            await page.close();
            await closeFake();
          },
        };
      },
    });
  } catch (err) {
    await closeFake();
    throw err;
  }
}
