/**
 * npm run teamwork -- run --tasks <dir> --model <name> [--seeds 3] [--concurrency 4] [--out <dir>]
 *                         [--partner offline-partner] [--referee offline-judge] [--second-rater offline-judge] [--third-rater <name>]
 *                         [--temperature 0.7] [--max-tokens 600] [--timeout-ms 60000] [--max-attempts 4]
 *                         [--prices <file>] [--replicates 4000] [--bootstrap-seed <n>]
 *                         [--models models.yaml] [--same-raters] [--replace] [--strict]
 * npm run teamwork -- score <out-dir> [--prices <file>] [--replicates 4000] [--bootstrap-seed <n>] [--lite <k>] [--holdout a,b] [--dimensions a,b] [--strict]
 * npm run teamwork -- report <out-dir> [<out-dir>…] --out <dir> [--allow-mixed] [same flags as score]
 * npm run teamwork -- check <task-file> --message <text> [--arm test]   (prints {"answer", "passed", "value"} as a run reads that final message)
 * npm run teamwork -- labels <out-dir> --out labels.csv [--tasks <dir>]   (subject messages with both raters' labels, for people to label)
 * npm run teamwork -- from-study --study <id> --out <dir> [--studies studies] [--surveys surveys] [same flags as score]
 *   (people in the same seat: a teamwork-seat study's sessions as runs, from DATA_DIR's database or DATABASE_URL)
 *
 * Models: offline-steady, offline-pushover, offline-wavering (reference teammates; judges offline-judge,
 * partner offline-partner) need no key; a name in the --models file goes to its endpoint, any other name to
 * OPENAI_BASE_URL with OPENAI_API_KEY. A subject that is not offline needs --referee and --second-rater.
 * `run` stores each finished run at once; a rerun makes no calls for finished runs; Ctrl-C keeps them.
 * See docs/teamwork.md.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { z } from 'zod';
import { ModelSetupError } from '../research/teamwork/runner/clients';
import { runSuite, SettingsMixError } from '../research/teamwork/runner/runSuite';
import { judgeChoiceProblem } from '../research/teamwork/endpoints/judgeSetup';
import { settingsMixes } from '../research/teamwork/results/runSettings';
import { loadModelsFile, ModelsFileError } from '../research/teamwork/endpoints/modelsFile';
import { OFFLINE_JUDGE, OFFLINE_PARTNER } from '../research/teamwork/models/offlineModels';
import { readRunsIn, RunsFileError, writeRuns } from '../research/teamwork/results/runsFile';
import { writeResults, type WriteOptions } from '../research/teamwork/results/writeResults';
import { loadPrices, PriceFileError } from '../research/teamwork/scoring/prices';
import { DEFAULT_BOOTSTRAP_SEED, DEFAULT_REPLICATES } from '../research/teamwork/scoring/scoreRuns';
import { loadTaskDir, parseTaskText, TaskFileError } from '../research/teamwork/tasks/loadTasks';
import { readingLine, readMessage } from '../research/teamwork/checks/readMessage';
import { TeamworkArm } from '../common/teamworkTask';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { teamworkLabelsCsv } from '../research/teamwork/results/labelsCsv';
import { runKey, type TeamworkRun } from '../common/teamworkRun';
import { ConfigError } from '../lib/studyFiles/studyConfig';
import { StudyRunsError } from '../research/teamwork/seat/studyRuns';
import { exportSeatStudy } from '../research/teamwork/seat/exportSeatStudy';
import { cliDataDirAnnounced } from './dataDir';

const USAGE = `teamwork run --tasks <dir> --model <name> [--seeds 3] [--concurrency 4] [--out <dir>] …
       teamwork score <out-dir> [--prices <file>] [--lite <k>] [--holdout a,b] [--dimensions a,b] [--strict]
       teamwork report <out-dir> [<out-dir>…] --out <dir> [--allow-mixed] [--prices <file>] [--lite <k>] [--holdout a,b] [--dimensions a,b] [--strict]
       teamwork check <task-file> --message <text> [--arm test]
       teamwork labels <out-dir> --out labels.csv [--tasks <dir>]
       teamwork from-study --study <id> --out <dir> [--studies studies] [--surveys surveys] [--prices <file>]`;

class UsageError extends Error {}

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const ModelName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,127}$/, 'must be a model name (letters, digits, . _ : / @ -)');
const scoringFlags = {
  prices: z.string().min(1).optional(),
  replicates: int(100, 1_000_000).default(DEFAULT_REPLICATES),
  bootstrapSeed: int(0, 2 ** 32 - 1).default(DEFAULT_BOOTSTRAP_SEED),
  lite: int(1, 100).optional(),
  holdout: z.string().optional().transform((s) => (s === undefined ? undefined : s.split(',').map((x) => x.trim()).filter(Boolean))),
  dimensions: z.string().optional().transform((s) => (s === undefined ? undefined : s.split(',').map((x) => x.trim()).filter(Boolean))),
  strict: z.boolean().default(false),
};
const RunFlags = z.object({
  tasks: z.string().min(1, 'required'),
  model: ModelName,
  seeds: int(1, 100).default(3),
  concurrency: int(1, 256).default(4),
  out: z.string().min(1).optional(),
  partner: ModelName.default(OFFLINE_PARTNER),
  referee: ModelName.optional(),
  secondRater: ModelName.optional(),
  thirdRater: ModelName.optional(),
  models: z.string().min(1).optional(),
  sameRaters: z.boolean().default(false),
  replace: z.boolean().default(false),
  temperature: z.coerce.number().min(0).max(2).default(0.7),
  maxTokens: int(16, 32_000).default(600),
  timeoutMs: int(100, 600_000).optional(),
  maxAttempts: int(1, 10).default(4),
  ...scoringFlags,
}).strict();
const ScoreFlags = z.object({ dirs: z.array(z.string()).length(1, 'give one results folder'), ...scoringFlags }).strict();
const FromStudyFlags = z.object({
  study: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be a study id (the study file name without .yaml)'),
  out: z.string().min(1, 'required'),
  studies: z.string().min(1).default('studies'),
  surveys: z.string().min(1).default('surveys'),
  ...scoringFlags,
}).strict();
const ReportFlags = z.object({ dirs: z.array(z.string()).min(1, 'give at least one results folder'), out: z.string().min(1, 'required'), allowMixed: z.boolean().default(false), ...scoringFlags }).strict();

const STRING_FLAGS = ['tasks', 'model', 'seeds', 'concurrency', 'out', 'partner', 'referee', 'second-rater', 'third-rater', 'temperature', 'max-tokens', 'timeout-ms', 'max-attempts', 'prices', 'replicates', 'bootstrap-seed', 'lite', 'holdout', 'study', 'studies', 'surveys', 'models', 'dimensions', 'message', 'arm'];
const BOOLEAN_FLAGS = ['same-raters', 'replace', 'strict', 'allow-mixed'];

function parse<T>(argv: string[], schema: z.ZodType<T>): T {
  let parsed;
  try {
    const options = { ...Object.fromEntries(STRING_FLAGS.map((n) => [n, { type: 'string' as const }])), ...Object.fromEntries(BOOLEAN_FLAGS.map((n) => [n, { type: 'boolean' as const }])) };
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const raw: Record<string, unknown> = Object.fromEntries(Object.entries(parsed.values).map(([k, v]) => [k.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()), v]));
  if (parsed.positionals.length > 0) raw.dirs = parsed.positionals;
  const result = schema.safeParse(raw);
  if (!result.success) {
    const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    throw new UsageError(result.error.issues.map((i) => {
      const key = String(i.path[0] ?? '');
      return `${key === 'dirs' ? '<out-dir>' : key ? `--${kebab(key)}` : 'arguments'}: ${i.message}`;
    }).join('\n'));
  }
  return result.data;
}

function writeOptions(flags: z.infer<typeof ScoreFlags> | z.infer<typeof RunFlags> | z.infer<typeof FromStudyFlags>, mixed: string[] = []): WriteOptions {
  return {
    ...(flags.dimensions ? { dimensions: flags.dimensions } : {}),
    mixed,
    replicates: flags.replicates,
    seed: flags.bootstrapSeed,
    ...(flags.prices ? { prices: loadPrices(flags.prices) } : {}),
    ...(flags.lite !== undefined ? { liteK: flags.lite } : {}),
    ...(flags.holdout ? { liteHoldout: flags.holdout } : {}),
  };
}

class StrictError extends Error {}

function summary(dir: string, scores: Awaited<ReturnType<typeof writeResults>>['scores'], strict = false): string {
  const lines = scores.ranking.map((m) => {
    const s = scores.models[m]!;
    const ci = s.overall.ci95 ? ` [${s.overall.ci95[0].toFixed(1)}, ${s.overall.ci95[1].toFixed(1)}]` : '';
    const tasks = Object.values(s.dimensions).reduce((n, d) => n + d.n_tasks, 0);
    const rank = s.rank === null ? 'unranked' : `#${s.rank}`;
    return `  ${rank} ${m}: ${s.overall.score === null ? `no overall (no gated task in ${s.incomplete.join(', ')})` : s.overall.score.toFixed(1)}${ci}; solved alone ${s.solved_alone.length} of ${tasks}; ` +
      `missed it ${s.failure_modes.missed_it}, gave in ${s.failure_modes.gave_in} of ${s.failure_modes.test_runs} test runs; excluded ${s.excluded_runs.total}${s.excluded_runs.unscored ? ` (unscored ${s.excluded_runs.unscored})` : ''}, missing ${s.runs.missing ?? '–'}` +
      `${s.judged_turns.unlabelled ? `; ${s.judged_turns.unlabelled} of ${s.judged_turns.turns} judged turns unlabelled` : ''}`;
  });
  for (const w of scores.warnings) process.stderr.write(`teamwork: warning: ${w}\n`);
  if (strict) {
    const blocking = scores.warnings.filter((w) => / runs? (missing|excluded)/.test(w));
    if (blocking.length) throw new StrictError(`--strict: ${blocking.join('; ')}`);
  }
  return `${lines.join('\n')}\nwrote ${dir}/{runs.jsonl,scores.json,leaderboard.csv,report.html}\n`;
}

async function runCommand(argv: string[]): Promise<number> {
  const flags = parse(argv, RunFlags);
  const judges = { subject: flags.model, referee: flags.referee ?? OFFLINE_JUDGE, second: flags.secondRater ?? OFFLINE_JUDGE, refereeNamed: flags.referee !== undefined, secondNamed: flags.secondRater !== undefined, sameRaters: flags.sameRaters };
  const problem = judgeChoiceProblem(judges);
  if (problem) throw new UsageError(problem);
  const models = flags.models ? loadModelsFile(resolve(flags.models)) : undefined;
  const tasks = loadTaskDir(resolve(flags.tasks));
  const outDir = resolve(flags.out ?? `teamwork-results/${flags.model.replace(/[^A-Za-z0-9._-]/g, '_')}`);
  const options = writeOptions(flags);
  const controller = new AbortController();
  const onSigint = (): void => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write('\nteamwork: interrupted — finished runs are kept; rerun the same command to resume. Ctrl-C again to quit now.\n');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: 'teamwork {bar} {value}/{total} runs | ETA {eta_formatted} | calls {calls} | cache hits {cacheHits} | tokens {tokens}', etaBuffer: 50, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  try {
    const outcome = await runSuite({
      tasks, model: flags.model, seeds: flags.seeds, concurrency: flags.concurrency, outDir,
      partner: flags.partner, referee: judges.referee, second: judges.second, ...(flags.thirdRater ? { third: flags.thirdRater } : {}),
      sameRaters: flags.sameRaters, replace: flags.replace, ...(models ? { models } : {}),
      temperature: flags.temperature, maxTokens: flags.maxTokens, env: process.env, maxAttempts: flags.maxAttempts,
      ...(flags.timeoutMs !== undefined ? { timeoutMs: flags.timeoutMs } : {}),
      signal: controller.signal,
      onProgress: (p) => {
        const payload = { calls: p.calls, cacheHits: p.cacheHits, tokens: p.tokens };
        if (!started) {
          bar.start(p.total, p.done, payload);
          started = true;
        } else bar.update(p.done, payload);
      },
    });
    if (started) bar.stop();
    started = false;
    const { scores } = await writeResults(outDir, readRunsIn(outDir), options);
    process.stdout.write(`teamwork: ${outcome.ran} run${outcome.ran === 1 ? '' : 's'} made, ${outcome.skipped} already finished; ${outcome.calls} model calls, ${outcome.cacheHits} cache hits, ${outcome.tokens} tokens\n`);
    process.stdout.write(summary(outDir, scores, flags.strict));
    return outcome.interrupted ? 130 : 0;
  } finally {
    if (started) bar.stop();
    process.off('SIGINT', onSigint);
  }
}

async function scoreCommand(argv: string[]): Promise<number> {
  const flags = parse(argv, ScoreFlags);
  const dir = resolve(flags.dirs[0]!);
  if (!existsSync(dir)) throw new UsageError(`<out-dir>: ${dir} does not exist`);
  const runs = readRunsIn(dir);
  if (runs.length === 0) throw new UsageError(`<out-dir>: ${dir} has no runs (runs.jsonl)`);
  process.stdout.write(summary(dir, (await writeResults(dir, runs, writeOptions(flags, settingsMixes(runs).map((m) => m.message)))).scores, flags.strict));
  return 0;
}

async function reportCommand(argv: string[]): Promise<number> {
  const flags = parse(argv, ReportFlags);
  const merged = new Map<string, TeamworkRun>();
  for (const d of flags.dirs) {
    const dir = resolve(d);
    if (!existsSync(dir)) throw new UsageError(`<out-dir>: ${dir} does not exist`);
    for (const r of readRunsIn(dir)) merged.set(runKey(r), r);
  }
  if (merged.size === 0) throw new UsageError('no runs in the given folders');
  const mixes = settingsMixes([...merged.values()]);
  if (mixes.length > 0 && !flags.allowMixed) {
    throw new SettingsMixError(`the folders mix settings:\n${mixes.map((m) => `  ${m.message}`).join('\n')}\nRun the models again under the same settings, or pass --allow-mixed to report them marked.`);
  }
  const out = resolve(flags.out);
  mkdirSync(out, { recursive: true });
  writeRuns(out, [...merged.values()]);
  process.stdout.write(summary(out, (await writeResults(out, [...merged.values()], writeOptions(flags, mixes.map((m) => m.message)))).scores, flags.strict));
  return 0;
}

async function fromStudyCommand(argv: string[]): Promise<number> {
  const flags = parse(argv, FromStudyFlags);
  const options = writeOptions(flags);
  const { runs, skipped, calls, cacheHits } = await exportSeatStudy({ studyId: flags.study, studiesDir: resolve(flags.studies), surveysDir: resolve(flags.surveys), dataDir: cliDataDirAnnounced(process.env), env: process.env });
  if (runs.length === 0) throw new StudyRunsError(`study "${flags.study}" has no finished non-pilot session in a teamwork-seat condition`);
  const out = resolve(flags.out);
  mkdirSync(out, { recursive: true });
  writeRuns(out, runs);
  process.stdout.write(
    `teamwork: ${runs.length} session${runs.length === 1 ? '' : 's'} as runs (left out: ${skipped.pilot} pilot, ${skipped.unfinished} unfinished, ${skipped.declined} declined); ` +
      `${calls} model calls, ${cacheHits} cache hits\n`,
  );
  process.stdout.write(summary(out, (await writeResults(out, runs, options)).scores, flags.strict));
  return 0;
}

const CheckFlags = z.object({
  dirs: z.array(z.string()).length(1, 'give one task file'),
  message: z.string().min(1, 'required: the final message to read'),
  arm: TeamworkArm.default('test'),
}).strict();

/** Reads one message with a task's check, as a run would, and prints {"answer", "passed", "value", …} on one line. */
function checkCommand(argv: string[]): number {
  const flags = parse(argv, CheckFlags);
  const file = resolve(flags.dirs[0]!);
  if (!existsSync(file)) throw new UsageError(`<task-file>: ${file} does not exist`);
  const parsed = parseTaskText(readFileSync(file, 'utf8'), flags.dirs[0]!);
  if (!parsed.task) throw new TaskFileError(parsed.problems);
  process.stdout.write(`${readingLine(readMessage(parsed.task, flags.message))}\n`);
  return 0;
}

const LabelsFlags = z.object({
  dirs: z.array(z.string()).length(1, 'give one results folder'),
  out: z.string().min(1, 'required: the CSV to write'),
  tasks: z.string().min(1).optional(),
}).strict();

/** labels.csv of a results folder's labelled subject messages, for people to label beside the judges. */
function labelsCommand(argv: string[]): number {
  const flags = parse(argv, LabelsFlags);
  const dir = resolve(flags.dirs[0]!);
  const runs = readRunsIn(dir);
  if (runs.length === 0) throw new UsageError(`<out-dir>: ${dir} has no runs (runs.jsonl)`);
  const allowed = new Map(flags.tasks ? loadTaskDir(resolve(flags.tasks)).map((t) => [t.id, Object.keys(t.labels.set)] as const) : []);
  const csv = teamworkLabelsCsv(runs, allowed);
  writeFileSync(resolve(flags.out), csv);
  process.stdout.write(`teamwork: wrote ${flags.out} (${csv.split('\n').length - 2} labelled messages); fill human_label and rater, then: npm run agreement -- ${flags.dirs[0]} --teamwork-labels ${flags.out}\n`);
  return 0;
}

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'run') return runCommand(rest);
  if (command === 'score') return scoreCommand(rest);
  if (command === 'report') return reportCommand(rest);
  if (command === 'from-study') return fromStudyCommand(rest);
  if (command === 'check') return checkCommand(rest);
  if (command === 'labels') return labelsCommand(rest);
  throw new UsageError(command ? `unknown command "${command}"` : 'give a command: run, score, report, check, labels or from-study');
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const known = [UsageError, StrictError, SettingsMixError, ModelsFileError, TaskFileError, RunsFileError, PriceFileError, ModelSetupError, StudyRunsError, ConfigError].some((t) => error instanceof t);
    process.stderr.write(`teamwork: ${known ? (error as Error).message : ((error as Error).stack ?? String(error))}\n`);
    if (error instanceof UsageError) process.stderr.write(`usage: ${USAGE}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
