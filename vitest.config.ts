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

// Two workers per core (at most 8): a file spends much of its time waiting (servers, child processes, the
// browser, timers), so more files than cores keep the cores busy. On this 2-core box, 2026-12-02, quiet machine,
// 1626 tests: 4 workers 7 min 30 s (143 % CPU; 6 min 57 s once the last test fixes were in); 6 workers 6 min 39 s to 7 min 25 s, but under the load average of
// ~10 that 6 workers make, timing-sensitive tests failed in two runs of four, so 6 is opt-in
// (VITEST_MAX_WORKERS=6, or --maxWorkers) until those tests are made load-proof.
const WORKERS = Math.max(2, Math.min(8, 2 * os.availableParallelism()));

// What every project uses. Projects do not `extends: true` the root: they would inherit its globalSetup and
// start a PostgreSQL cluster each.
const PROJECT_DEFAULTS = {
  // Integration and browser tests start real servers, so they get generous timeouts.
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: 'forks',
  isolate: process.env.VITEST_ISOLATE === '1',
} as const;

export default defineConfig({
  test: {
    exclude: EXCLUDE,
    ...PROJECT_DEFAULTS,
    maxWorkers: WORKERS,
    // One throwaway PostgreSQL cluster per run for the PostgreSQL variants of the storage tests.
    globalSetup: ['./tests/support/postgresGlobalSetup.ts', './tests/support/entriesGlobalSetup.ts'],
    sequence: { sequencer: SlowFirstSequencer },
    // vitest keeps each module's transform on disk (node_modules/.experimental-vitest-cache, keyed by the file's
    // content and the config), so a run after the first transforms only what changed: on the 2-core box,
    // 2026-12-03, research/analysis + common (157 tests) took 19–22 s of user CPU instead of 22–23 s.
    // VITEST_FS_MODULE_CACHE=0 transforms everything afresh.
    experimental: { fsModuleCache: process.env.VITEST_FS_MODULE_CACHE !== '0' },
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
