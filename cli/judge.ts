/**
 * npm run judge -- (--study <id> | <dataset-dir>) [--samples 3] [--model …] [--concurrency 4] [--rubric <id>]
 *                  [--temperature 0.7] [--seed 0] [--max-tokens 400] [--timeout-ms 60000]
 *                  [--images describe|attach] [--image-detail auto|low|high]
 *                  [--data-dir data] [--studies-dir studies] [--surveys-dir surveys] [--rubrics-dir rubrics]
 *
 * --images attach sends each uploaded image of an image field to the model (a vision model is needed);
 * the default, describe, only notes in the text that an image was uploaded. A session whose image cannot
 * be attached is not judged (its samples say why, and the exit code is 1); the others are.
 * Scores each session's latest artifact with an LLM judge (k samples, Q = median). Provider from the
 * environment: OPENAI_BASE_URL + OPENAI_API_KEY; without a key, the offline demo judge (labelled as such).
 * Dataset dir: writes judgements.csv, judgements.jsonl, quality.csv into it. --study: stores in the database.
 * Replies are cached (<dir>/.judge-cache.sqlite): a rerun makes no new calls; Ctrl-C keeps finished work.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import {
  existingDatasetDir,
  intFlag,
  parseFlags,
  runCliMain,
  studyTasks,
  targetFlags,
  withOneTarget,
  withProgressAndSigint,
  withStudyStore,
} from '../research/judge/cliSupport';
import { datasetStudyId, DatasetError } from '../research/judge/datasetSource';
import { judgeDataset } from '../research/judge/judgeDataset';
import { IMAGE_DETAILS, IMAGE_MODES } from '../research/judge/judgeImages';
import { judgeStudy } from '../research/judge/judgeStudy';
import { providerFromEnv } from '../research/judge/judgeProvider';
import { OfflineJudgeProvider } from '../research/judge/offlineJudge';
import { DEFAULT_RUBRICS_DIR, loadRubrics } from '../lib/studyFiles/rubricFiles';
import { imageFailures } from '../research/judge/runJudge';
import { RubricSelectionError } from '../research/judge/targets';
import { RubricValidationError } from '../common/rubric';
import { cliDataDir } from './dataDir';

const FLAGS = ['study', 'samples', 'model', 'concurrency', 'rubric', 'temperature', 'seed', 'max-tokens', 'timeout-ms', 'images', 'image-detail', 'data-dir', 'studies-dir', 'surveys-dir', 'rubrics-dir'] as const;

const JudgeFlags = withOneTarget(
  z.object({
    ...targetFlags,
    samples: intFlag(1, 25).default(3),
    model: z.string().min(1).default(process.env.JUDGE_MODEL ?? 'gpt-4o-mini'),
    concurrency: intFlag(1, 64).default(4),
    rubric: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be a rubric id').optional(),
    temperature: z.coerce.number().min(0).max(2).default(0.7),
    seed: intFlag(0, 2 ** 31 - 1).default(0),
    maxTokens: intFlag(16, 8192).default(400),
    timeoutMs: intFlag(100, 600_000).default(60_000),
    images: z.enum(IMAGE_MODES).default('describe'),
    imageDetail: z.enum(IMAGE_DETAILS).optional(),
    dataDir: z.string().min(1).default(cliDataDir()),
    studiesDir: z.string().min(1).default('studies'),
    surveysDir: z.string().min(1).default('surveys'),
    rubricsDir: z.string().min(1).default(DEFAULT_RUBRICS_DIR),
  }),
).refine((f) => f.imageDetail === undefined || f.images === 'attach', { message: 'only applies with --images attach', path: ['imageDetail'] });

const warn = (m: string) => process.stderr.write(`judge: ${m}\n`);

async function main(): Promise<number> {
  const flags = parseFlags(process.argv.slice(2), FLAGS, JudgeFlags);
  const rubrics = loadRubrics(resolve(flags.rubricsDir));
  const chosen = providerFromEnv(process.env, () => new OfflineJudgeProvider(), { timeoutMs: flags.timeoutMs });
  if (chosen.offline) warn('no OPENAI_API_KEY: using the OFFLINE DEMO judge (a size heuristic, not an evaluation); records say "offline-judge-demo"');
  if (chosen.offline && flags.images === 'attach') warn('--images attach: images are checked and recorded, but the offline demo judge does not look at them');
  const settings = {
    model: flags.model,
    samples: flags.samples,
    concurrency: flags.concurrency,
    temperature: flags.temperature,
    maxTokens: flags.maxTokens,
    baseSeed: flags.seed,
    timeoutMs: flags.timeoutMs,
    images: flags.images,
    ...(flags.imageDetail ? { imageDetail: flags.imageDetail } : {}),
  };
  const { result, where, groupNote = '' } = await withProgressAndSigint('judge', async (hooks) => {
    const common = { rubrics, ...(flags.rubric ? { rubricFlag: flags.rubric } : {}), settings, provider: chosen.provider, providerInfo: chosen.info, ...hooks };
    if (flags.datasetDir !== undefined) {
      const dir = existingDatasetDir(flags.datasetDir);
      const studyId = datasetStudyId(dir);
      const tasks = studyId ? studyTasks(studyId, flags, warn) : [];
      const judged = await judgeDataset({ ...common, dir, studyTasks: new Map(tasks.map((t) => [t.id, t])) });
      return { result: judged, where: `${dir}/judgements.csv, quality.csv, judgements.jsonl` };
    }
    const studyId = flags.study as string;
    const stored = await withStudyStore(flags.dataDir, (store, dataDir) => judgeStudy({ ...common, store, dataDir, studyId, tasks: studyTasks(studyId, flags, warn) }));
    const groupTables = stored.result.groupsJudged > 0 ? ', group_judgements and group_judge_quality' : '';
    // A study with groups: each group's shared document is one target; its members are not judged one by one.
    const { groupsJudged, membersInGroups } = stored.result;
    const groupNote = groupsJudged > 0 || membersInGroups > 0 ? ` (${groupsJudged} group document(s); ${membersInGroups} group member session(s) judged through their group)` : '';
    return { result: stored.result, where: `tables judgements and judge_quality${groupTables} of ${stored.file}`, groupNote };
  });
  const s = result.stats;
  const summary = `${result.samples.length}/${result.total} samples${groupNote}, ${s.calls} new calls, ${s.cacheHits} cache hits, ${s.merged} merged, ${s.tokensSpent} tokens`;
  if (result.interrupted) {
    warn(`interrupted: ${summary}. Finished replies are cached${flags.study ? ' and stored' : ''}; rerun the same command to resume.`);
    return 130;
  }
  const failed = result.samples.filter((x) => !x.parseOk).length;
  const imageErrors = imageFailures(result.samples);
  for (const [sessionId, reason] of imageErrors) warn(`session ${sessionId} not judged: its image could not be attached: ${reason}`);
  process.stderr.write(`judge: done: ${summary}; ${failed} without a score. Wrote ${where}.\n`);
  if (imageErrors.size > 0) {
    warn(`${imageErrors.size} session(s) not judged because an image could not be attached (listed above); fix or re-export the files and rerun.`);
    return 1;
  }
  return 0;
}

runCliMain(
  'judge',
  'npm run judge -- (--study <id> | <dataset-dir>) [--samples 3] [--model …] [--concurrency 4] [--rubric <id>] [--images describe|attach]',
  [DatasetError, RubricValidationError, RubricSelectionError],
  main,
);
