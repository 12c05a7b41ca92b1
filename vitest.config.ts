import { defineConfig } from 'vitest/config';

// One runner for unit, integration and browser tests. Integration and browser tests start real
// servers, so they get generous timeouts; the suite runs files in parallel on the machine's 2 cores.
export default defineConfig({
  test: {
    include: ['**/*.test.ts', '**/*.test.tsx'],
    exclude: ['node_modules/**', 'dist/**', 'data/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One throwaway PostgreSQL cluster per run for the PostgreSQL variants of the storage tests.
    globalSetup: ['./tests/support/postgresGlobalSetup.ts'],
    reporters: ['default', './tests/support/summaryReporter.ts'],
  },
});
