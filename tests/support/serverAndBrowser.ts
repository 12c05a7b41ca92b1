/**
 * The set-up the e2e tests share: the built client, a server on a temp DATA_DIR serving it, and a Chromium
 * (./browser.ts) to open its pages, closed in the reverse order.
 *
 * In the `browser` project (vitest.config.ts, ./browserGlobalSetup.ts) the Chromium and the `temp` client
 * are made once per run and shared: a file costs a browser context and a server, not a Chromium and a
 * client build. Each file still gets its own server and DATA_DIR.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { inject } from 'vitest';
import { type RunningServer, type StartServerOptions } from '../../server/app';
import { startTandem } from '../../wiring/startTandem';
import { launchBrowser } from './browser';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The offline assistant of a browser test's server: no delay before the first token, then 400 tokens/s instead of
 * the demo's readable 40, so a reply (60–90 tokens) streams in ~0.2 s, in several deltas, rather than 2 s
 * that every test waiting for a finished reply sat out.
 */
export const FAST_OFFLINE_REPLIES = { offlineReplyDelayMs: 0, offline: { tokensPerSecond: 400 } } as const;

/** The server a browser test opens pages of (the shape of AdminTestServer, tests/support/adminTestServer.ts, too). */
export interface PageServer {
  server: RunningServer;
  url: string;
  dataDir: string;
  close(): Promise<void>;
}

/** The server's options, or a function that makes them once the DATA_DIR exists (e.g. writing a studies folder into it first). */
export type TempDataDirServerOptions = Omit<StartServerOptions, 'dataDir'> | ((dataDir: string) => Omit<StartServerOptions, 'dataDir'>);

/** startServer on a fresh temp DATA_DIR (`<prefix>…`), which close() removes after the server closed. */
export async function startTempDataDirServer(prefix: string, options: TempDataDirServerOptions): Promise<PageServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix));
  try {
    const server = await startTandem({ ...(typeof options === 'function' ? options(dataDir) : options), dataDir });
    return {
      server,
      url: server.url,
      dataDir,
      close: async () => {
        await server.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

export interface ServerAndBrowserOptions<S extends PageServer = PageServer> {
  /**
   * `dist`: the server serves dist/client, built first if missing (its default clientDir).
   * `temp`: a client built into a temp folder (dist/ is not touched): the run's shared build in the
   * `browser` project, else one built for this file and removed at close.
   */
  client: 'dist' | 'temp';
  /** Starts the server; `clientDir` is set for a `temp` client. */
  startServer(client: { clientDir?: string }): Promise<S>;
}

/**
 * A server and a browser for one e2e test file: close() closes the browser, then the server, then removes the temp client.
 * `S` is the caller's own kind of server (e.g. the integration harness's TestServer), whose other fields it keeps.
 */
export type ServerAndBrowser<S extends PageServer = PageServer> = S & { browser: Browser };

/** Builds the client as `options.client` says, starts the server, launches Chromium (each undone if a later step fails). */
export async function startServerAndBrowser<S extends PageServer>(options: ServerAndBrowserOptions<S>): Promise<ServerAndBrowser<S>> {
  let clientDir: string | undefined;
  let pageServer: S | undefined;
  const removeClient = () => {
    if (clientDir) rmSync(clientDir, { recursive: true, force: true });
  };
  let sharedClientDir = '';
  try {
    sharedClientDir = inject('sharedClientDir') ?? '';
  } catch {
    // not inside a vitest worker: build one below
  }
  try {
    if (options.client === 'temp' && sharedClientDir) {
      pageServer = await options.startServer({ clientDir: sharedClientDir });
    } else if (options.client === 'temp') {
      clientDir = mkdtempSync(path.join(tmpdir(), 'tandem-e2e-client-'));
      execFileSync('npx', ['vite', 'build', '--outDir', clientDir, '--emptyOutDir'], { cwd: ROOT, stdio: 'ignore' });
      pageServer = await options.startServer({ clientDir });
    } else {
      if (!existsSync(path.join(ROOT, 'dist/client/index.html'))) execFileSync('npx', ['vite', 'build'], { cwd: ROOT, stdio: 'ignore' });
      pageServer = await options.startServer({});
    }
    const launched = await launchBrowser();
    const started = pageServer;
    return {
      ...started,
      browser: launched.browser,
      close: async () => {
        await launched.close();
        await started.close();
        removeClient();
      },
    };
  } catch (err) {
    await pageServer?.close();
    removeClient();
    throw err;
  }
}
