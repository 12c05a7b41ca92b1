/**
 * vitest globalSetup of the `browser` project (vitest.config.ts): what every browser test file used to make
 * for itself, made once per run and handed to the workers with `provide`:
 *
 *   inject('browserWsEndpoint')   one Chromium (browserType.launchServer); launchBrowser() connects to it,
 *                                 and each file's pages live in browser contexts of their own
 *   inject('sharedClientDir')     one client build in a temp folder (dist/ untouched), what
 *                                 startServerAndBrowser({ client: 'temp' }) serves
 *
 * Both are empty strings when TANDEM_TEST_SHARED_BROWSER=off: every file then launches its own Chromium and
 * builds its own temp client, as before (to rule the sharing out when a browser test misbehaves).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type BrowserServer } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './browser';

declare module 'vitest' {
  export interface ProvidedContext {
    /** WebSocket endpoint of the run's shared Chromium, or '' (each file launches its own). */
    browserWsEndpoint: string;
    /** The run's client build (index.html + assets), or '' (each `temp` file builds its own). */
    sharedClientDir: string;
  }
}

const ROOT = path.resolve(import.meta.dirname, '../..');

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.TANDEM_TEST_SHARED_BROWSER === 'off') {
    project.provide('browserWsEndpoint', '');
    project.provide('sharedClientDir', '');
    return async () => {};
  }
  const clientDir = mkdtempSync(path.join(tmpdir(), 'tandem-e2e-client-'));
  // The build and Chromium's start-up overlap: neither needs the other.
  const [built, launched] = await Promise.allSettled([
    promisify(execFile)(path.join(ROOT, 'node_modules/.bin/vite'), ['build', '--outDir', clientDir, '--emptyOutDir', '--logLevel', 'warn'], { cwd: ROOT }),
    chromium.launchServer({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS }),
  ]);
  const server: BrowserServer | undefined = launched.status === 'fulfilled' ? launched.value : undefined;
  if (built.status === 'rejected' || !server) {
    await server?.close();
    rmSync(clientDir, { recursive: true, force: true });
    const reason = built.status === 'rejected' ? `the client build failed: ${String(built.reason)}` : `Chromium did not start: ${String((launched as PromiseRejectedResult).reason)}`;
    throw new Error(`browser tests' set-up: ${reason}`);
  }
  project.provide('browserWsEndpoint', server.wsEndpoint());
  project.provide('sharedClientDir', clientDir);
  return async () => {
    await server.close();
    rmSync(clientDir, { recursive: true, force: true });
  };
}
