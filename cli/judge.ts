/**
 * npm run judge -- (--study <id> | <dataset-dir>) [--samples 3] [--model …] [--concurrency 4] [--rubric <id>]
 *                  [--temperature 0.7] [--seed 0] [--max-tokens 400] [--timeout-ms 60000]
 *                  [--data-dir data] [--studies-dir studies] [--surveys-dir surveys] [--rubrics-dir rubrics]
 *
 * Scores each session's latest artifact with an LLM judge (k samples, Q = median). Provider from the
 * environment: OPENAI_BASE_URL + OPENAI_API_KEY; without a key, the offline demo judge (labelled as such).
 * Dataset dir: writes judgements.csv, judgements.jsonl, quality.csv into it. --study: stores in the database.
 * Replies are cached (<dir>/.judge-cache.sqlite): a rerun makes no new calls; Ctrl-C keeps finished work.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { openStore } from '../server/db/store';
import { abortOnSigint, parseFlags, startProgressBar, studyTasks, UsageError } from '../server/judge/cliSupport';
import { datasetStudyId, DatasetError } from '../server/judge/datasetSource';
import { judgeDataset } from '../server/judge/judgeDataset';
import { judgeStudy } from '../server/judge/judgeStudy';
import { providerFromEnv } from '../server/judge/judgeProvider';
import { OfflineJudgeProvider } from '../server/judge/offlineJudge';
import { DEFAULT_RUBRICS_DIR, loadRubrics } from '../server/judge/rubricFiles';
import { RubricSelectionError } from '../server/judge/targets';
import { RubricValidationError } from '../common/rubric';

const FLAGS = ['study', 'samples', 'model', 'concurrency', 'rubric', 'temperature', 'seed', 'max-tokens', 'timeout-ms', 'data-dir', 'studies-dir', 'surveys-dir', 'rubrics-dir'] as const;
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const JudgeFlags = z
  .object({
    study: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be a study id').optional(),
    datasetDir: z.string().min(1).optional(),
    samples: int(1, 25).default(3),
    model: z.string().min(1).default(process.env.JUDGE_MODEL ?? 'gpt-4o-mini'),
    concurrency: int(1, 64).default(4),
    rubric: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be a rubric id').optional(),
    temperature: z.coerce.number().min(0).max(2).default(0.7),
    seed: int(0, 2 ** 31 - 1).default(0),
    maxTokens: int(16, 8192).default(400),
    timeoutMs: int(100, 600_000).default(60_000),
    dataDir: z.string().min(1).default(process.env.TANDEM_DATA_DIR ?? 'data'),
    studiesDir: z.string().min(1).default('studies'),
    surveysDir: z.string().min(1).default('surveys'),
    rubricsDir: z.string().min(1).default(DEFAULT_RUBRICS_DIR),
  })
  .refine((f) => (f.study === undefined) !== (f.datasetDir === undefined), { message: 'give exactly one of --study <id> or <dataset-dir>' });

const warn = (m: string) => process.stderr.write(`judge: ${m}\n`);

async function main(): Promise<number> {
  const flags = parseFlags(process.argv.slice(2), FLAGS, JudgeFlags);
  const rubrics = loadRubrics(resolve(flags.rubricsDir));
  const chosen = providerFromEnv(process.env, () => new OfflineJudgeProvider(), { timeoutMs: flags.timeoutMs });
  if (chosen.offline) warn('no OPENAI_API_KEY: using the OFFLINE DEMO judge (a size heuristic, not an evaluation); records say "offline-judge-demo"');
  const settings = {
    model: flags.model,
    samples: flags.samples,
    concurrency: flags.concurrency,
    temperature: flags.temperature,
    maxTokens: flags.maxTokens,
    baseSeed: flags.seed,
    timeoutMs: flags.timeoutMs,
  };
  const bar = startProgressBar('judge');
  const sigint = abortOnSigint('judge');
  const common = {
    rubrics,
    ...(flags.rubric ? { rubricFlag: flags.rubric } : {}),
    settings,
    provider: chosen.provider,
    providerInfo: chosen.info,
    signal: sigint.signal,
    onProgress: bar.update,
  };
  try {
    let result;
    let where: string;
    if (flags.datasetDir !== undefined) {
      const dir = resolve(flags.datasetDir);
      if (!existsSync(dir)) throw new UsageError(`<dataset-dir>: ${dir} does not exist`);
      const studyId = datasetStudyId(dir);
      const tasks = studyId ? studyTasks(studyId, flags, warn) : [];
      result = await judgeDataset({ ...common, dir, studyTasks: new Map(tasks.map((t) => [t.id, t])) });
      where = `${dir}/judgements.csv, quality.csv, judgements.jsonl`;
    } else {
      const studyId = flags.study as string;
      const dataDir = resolve(flags.dataDir);
      const store = openStore(dataDir);
      try {
        result = await judgeStudy({ ...common, store, dataDir, studyId, tasks: studyTasks(studyId, flags, warn) });
      } finally {
        store.close();
      }
      where = `tables judgements and judge_quality of ${store.file}`;
    }
    bar.stop();
    const s = result.stats;
    const summary = `${result.samples.length}/${result.total} samples, ${s.calls} new calls, ${s.cacheHits} cache hits, ${s.merged} merged, ${s.tokensSpent} tokens`;
    if (result.interrupted) {
      warn(`interrupted: ${summary}. Finished replies are cached${flags.study ? ' and stored' : ''}; rerun the same command to resume.`);
      return 130;
    }
    const failed = result.samples.filter((x) => !x.parseOk).length;
    process.stderr.write(`judge: done: ${summary}; ${failed} without a score. Wrote ${where}.\n`);
    return 0;
  } finally {
    bar.stop();
    sigint.dispose();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const known = err instanceof UsageError || err instanceof DatasetError || err instanceof RubricValidationError || err instanceof RubricSelectionError;
    process.stderr.write(`judge: ${known ? (err as Error).message : (err as Error).stack ?? String(err)}\n`);
    if (err instanceof UsageError) process.stderr.write('usage: npm run judge -- (--study <id> | <dataset-dir>) [--samples 3] [--model …] [--concurrency 4] [--rubric <id>]\n');
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
