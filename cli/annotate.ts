/**
 * npm run annotate -- (--study <id> | <dataset-dir>) [--model …] [--concurrency 4] [--chunk-size 30]
 *                     [--context 4] [--guide docs/annotation-guide.md] [--data-dir data]
 *
 * Labels every utterance with grounding acts (multi-label) and one positive-friction label, following
 * docs/annotation-guide.md. Provider from OPENAI_BASE_URL + OPENAI_API_KEY; without a key, the offline
 * demo annotator (labelled as such). Dataset dir: writes annotations.csv and annotations.jsonl.
 * --study: stores in the annotations table. Replies are cached; a rerun makes no new calls.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { annotateDataset, annotateStudy } from '../research/annotate/annotateTargets';
import { DEFAULT_GUIDE_FILE, loadAnnotationGuide } from '../research/annotate/guide';
import { OfflineAnnotatorProvider } from '../research/annotate/offlineAnnotator';
import {
  existingDatasetDir,
  intFlag,
  parseFlags,
  runCliMain,
  targetFlags,
  withOneTarget,
  withProgressAndSigint,
  withStudyStore,
} from '../research/judge/cliSupport';
import { DatasetError } from '../research/judge/datasetSource';
import { providerFromEnv } from '../research/judge/judgeProvider';
import { cliDataDir } from './dataDir';

const FLAGS = ['study', 'model', 'concurrency', 'chunk-size', 'context', 'max-tokens', 'timeout-ms', 'guide', 'data-dir'] as const;

const AnnotateFlags = withOneTarget(
  z.object({
    ...targetFlags,
    model: z.string().min(1).default(process.env.ANNOTATOR_MODEL ?? 'gpt-4o-mini'),
    concurrency: intFlag(1, 64).default(4),
    chunkSize: intFlag(1, 200).default(30),
    context: intFlag(0, 50).default(4),
    maxTokens: intFlag(64, 32_768).default(4000),
    timeoutMs: intFlag(100, 600_000).default(120_000),
    guide: z.string().min(1).default(DEFAULT_GUIDE_FILE),
    dataDir: z.string().min(1).default(cliDataDir()),
  }),
);

const warn = (m: string) => process.stderr.write(`annotate: ${m}\n`);

async function main(): Promise<number> {
  const flags = parseFlags(process.argv.slice(2), FLAGS, AnnotateFlags);
  const guide = loadAnnotationGuide(resolve(flags.guide));
  const chosen = providerFromEnv(process.env, () => new OfflineAnnotatorProvider(), { timeoutMs: flags.timeoutMs });
  if (chosen.offline) warn('no OPENAI_API_KEY: using the OFFLINE DEMO annotator (keyword rules, not real labels); records say "offline-annotator-demo"');
  const settings = { model: flags.model, concurrency: flags.concurrency, chunkSize: flags.chunkSize, contextSize: flags.context, maxTokens: flags.maxTokens, timeoutMs: flags.timeoutMs };
  const { result, where } = await withProgressAndSigint('annotate', async (hooks) => {
    const options = { guide, settings, provider: chosen.provider, providerInfo: chosen.info, ...hooks };
    if (flags.datasetDir !== undefined) {
      const dir = existingDatasetDir(flags.datasetDir);
      return { result: await annotateDataset(dir, options), where: `${dir}/annotations.csv, annotations.jsonl` };
    }
    const stored = await withStudyStore(flags.dataDir, (store, dataDir) => annotateStudy(store, dataDir, flags.study as string, options));
    return { result: stored.result, where: `table annotations of ${stored.file}` };
  });
  const s = result.stats;
  const failed = result.annotations.filter((a) => a.method === 'failed').length;
  const fallback = result.annotations.filter((a) => a.method === 'single').length;
  const summary = `${result.annotations.length} utterances, ${s.calls} new calls, ${s.cacheHits} cache hits, ${s.tokensSpent} tokens`;
  if (result.interrupted) {
    warn(`interrupted: ${summary}. Finished replies are cached; rerun the same command to resume.`);
    return 130;
  }
  process.stderr.write(`annotate: done: ${summary}; ${fallback} labelled one at a time, ${failed} failed. Wrote ${where}.\n`);
  if (failed > 0) warn(`${failed} utterance(s) could not be labelled; they are left out of annotations.csv (see annotations.jsonl). A rerun retries transport failures.`);
  return 0;
}

runCliMain('annotate', 'npm run annotate -- (--study <id> | <dataset-dir>) [--model …]', [DatasetError], main);
