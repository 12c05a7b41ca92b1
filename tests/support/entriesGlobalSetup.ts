/**
 * vitest globalSetup: bundles the files tests start as child processes, once per run
 * (tests/support/testEntries.ts says why and how a child picks its bundle).
 */
import { buildTestEntries } from './testEntries';

export default async function setup(): Promise<void> {
  if (process.env.TANDEM_TEST_TSX === '1') return;
  const { ms, inputs } = await buildTestEntries();
  process.stdout.write(`test entries: bundled ${inputs} source files in ${ms} ms\n`);
}
