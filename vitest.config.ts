import os from 'node:os';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './tests/support/slowFirstSequencer.js';

/**
 * One runner, three projects (run one alone with `npx vitest run --project unit`, or `npm test -- --project unit`):
 *
 *   unit         tests beside the code (common/, lib/, server/, research/, client/, cli/)
 *   integration  tests/ apart from the browser ones: real servers, socket.io clients, PostgreSQL, Redis
 *   browser      tests/e2e/ and the other files that open pages: one Chromium and one client build for
 *                the whole run (tests/support/browserGlobalSetup.ts)
 *
 * PostgreSQL is one throwaway cluster for the whole run, whichever projects run (root globalSetup).
 */
const BROWSER_FILES = ['tests/e2e/**/*.test.ts', 'tests/analysis/reportLayout.test.ts', 'tests/support/browser.test.ts'];
const EXCLUDE = ['node_modules/**', 'dist/**', 'data/**'];

// Most of a test file's time is spent waiting (servers, sockets, Chromium, PostgreSQL, timers), so more
// workers than cores keep the cores busy: vitest's default on 2 cores is a single worker. VITEST_MAX_WORKERS
// (or --maxWorkers) overrides it.
const WORKERS = Math.max(2, Math.min(6, os.availableParallelism() * 2));

// What every project uses. Projects do not `extends: true` the root: they would inherit its globalSetup and
// start a PostgreSQL cluster each.
const PROJECT_DEFAULTS = {
  // Integration and browser tests start real servers, so they get generous timeouts.
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: 'forks',
} as const;

export default defineConfig({
  test: {
    exclude: EXCLUDE,
    ...PROJECT_DEFAULTS,
    maxWorkers: WORKERS,
    // One throwaway PostgreSQL cluster per run for the PostgreSQL variants of the storage tests.
    globalSetup: ['./tests/support/postgresGlobalSetup.ts'],
    sequence: { sequencer: SlowFirstSequencer },
    reporters: ['default', './tests/support/summaryReporter.ts'],
    projects: [
      {
        test: {
          ...PROJECT_DEFAULTS,
          name: 'unit',
          include: ['{common,lib,server,research,client,cli}/**/*.test.{ts,tsx}'],
          exclude: EXCLUDE,
        },
      },
      {
        test: {
          ...PROJECT_DEFAULTS,
          name: 'integration',
          include: ['tests/**/*.test.{ts,tsx}'],
          exclude: [...EXCLUDE, ...BROWSER_FILES],
        },
      },
      {
        test: {
          ...PROJECT_DEFAULTS,
          name: 'browser',
          include: BROWSER_FILES,
          exclude: EXCLUDE,
          globalSetup: ['./tests/support/browserGlobalSetup.ts'],
        },
      },
    ],
  },
});
