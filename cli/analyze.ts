import { runAnalysis } from '../research/analysis/runAnalysis';
import { DatasetError } from '../research/analysis/input/datasetError';
import { ANALYZE_USAGE, parseAnalyzeArgs } from '../research/analysis/analyzeFlags';
import { resolve } from 'node:path';
import { storeConfigFromEnv } from '../lib/storage';
import { cliActor } from '../research/exports/cliSupport';
import { cliDataDirAnnounced } from './dataDir';

/** `npm run analyze -- <dataset-dir> [--out <dir>] [--lambda 0.5] [--cost …]`: see research/analysis/runAnalysis.ts. */
async function main(argv: string[]): Promise<number> {
  const args = parseAnalyzeArgs(argv);
  if (args.kind === 'help') {
    console.log(ANALYZE_USAGE);
    return 0;
  }
  if (args.kind === 'error') {
    console.error(`analyze: ${args.message}\n${ANALYZE_USAGE}`);
    return 2;
  }
  try {
    const warn = (message: string) => console.error(`analyze: warning: ${message}`);
    // --prereg: this run's deviations from the plan go to the study's database, found as the other commands find it.
    const deviations = args.prereg ? { store: storeConfigFromEnv(args.dataDir ? resolve(args.dataDir) : cliDataDirAnnounced()), actor: cliActor() } : undefined;
    for (const path of await runAnalysis(args.dataset, args.out, args.options, { warn, prereg: args.prereg, ...(deviations ? { deviations } : {}) })) console.log(`wrote ${path}`);
    return 0;
  } catch (error) {
    if (error instanceof DatasetError) {
      console.error(`analyze: ${error.message}`);
      return 1;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code && ['EACCES', 'EPERM', 'ENOTDIR', 'EEXIST', 'ENOSPC', 'EROFS', 'EISDIR'].includes(code)) {
      console.error(`analyze: cannot write to ${args.out}: ${(error as Error).message}`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
