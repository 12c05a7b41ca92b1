/**
 * Pieces shared by the `judge` and `annotate` CLIs: flag parsing with zod (errors name the flag),
 * the target (--study <id> or <dataset-dir>), the stderr progress bar, Ctrl-C handling, loading the
 * study definition, and the exit-code / error-printing wrapper around main().
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { z } from 'zod';
import { openStore, storeConfigFromEnv, type Store } from '../../lib/storage';
import { loadConfig } from '../../lib/studyFiles/studyConfig';
import { judgeTasksOf, type StudyTaskDefinition } from './studySource';

export class UsageError extends Error {}

/** An integer flag within [min, max] (given as text on the command line). */
export const intFlag = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** The flags naming what to work on: exactly one of --study <id> or a dataset directory. */
export const targetFlags = {
  study: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be a study id').optional(),
  datasetDir: z.string().min(1).optional(),
};

/** `schema` (which includes targetFlags) refined so that exactly one target is given. */
export function withOneTarget<T extends { study?: string | undefined; datasetDir?: string | undefined }>(schema: z.ZodType<T>): z.ZodType<T> {
  return schema.refine((f) => (f.study === undefined) !== (f.datasetDir === undefined), { message: 'give exactly one of --study <id> or <dataset-dir>' });
}

/** The absolute dataset directory, or a UsageError when it does not exist. */
export function existingDatasetDir(dir: string): string {
  const abs = resolve(dir);
  if (!existsSync(abs)) throw new UsageError(`<dataset-dir>: ${abs} does not exist`);
  return abs;
}

/**
 * Opens the study store (DATABASE_URL, or <dataDir>/tandem.sqlite), runs `work` on it and closes it again
 * (also on failure). `file` describes the store for messages (the SQLite path, or the URL without password).
 */
export async function withStudyStore<T>(dataDir: string, work: (store: Store, dataDir: string) => Promise<T>): Promise<{ result: T; file: string }> {
  const abs = resolve(dataDir);
  const store = await openStore(storeConfigFromEnv(abs));
  try {
    return { result: await work(store, abs), file: store.description };
  } finally {
    await store.close();
  }
}

/**
 * Runs a CLI's main() and exits with its code. Errors of the `expected` classes (bad flags or input)
 * print as `<name>: message` without a stack; a UsageError also prints `usage` and exits 2; anything
 * else prints its stack and exits 1.
 */
export function runCliMain(name: string, usage: string, expected: ReadonlyArray<abstract new (...args: never[]) => Error>, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      const known = err instanceof UsageError || expected.some((type) => err instanceof type);
      process.stderr.write(`${name}: ${known ? (err as Error).message : (err as Error).stack ?? String(err)}\n`);
      if (err instanceof UsageError) process.stderr.write(`usage: ${usage}\n`);
      process.exit(err instanceof UsageError ? 2 : 1);
    },
  );
}

/** Parses argv against declared string flags plus positionals, then validates with a zod schema. */
export function parseFlags<T>(
  argv: string[],
  names: readonly string[],
  schema: z.ZodType<T>,
): T {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(names.map((n) => [n, { type: 'string' as const }])),
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const camel = (s: string) => s.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
  const raw: Record<string, unknown> = Object.fromEntries(Object.entries(parsed.values).map(([k, v]) => [camel(k), v]));
  if (parsed.positionals.length > 1) throw new UsageError(`expected at most one dataset directory, got: ${parsed.positionals.join(' ')}`);
  if (parsed.positionals[0] !== undefined) raw.datasetDir = parsed.positionals[0];
  const result = schema.safeParse(raw);
  if (!result.success) {
    const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    throw new UsageError(
      result.error.issues
        .map((i) => {
          const key = String(i.path[0] ?? '');
          const name = key === 'datasetDir' ? '<dataset-dir>' : key ? `--${kebab(key)}` : 'arguments';
          return `${name}: ${i.message}`;
        })
        .join('\n'),
    );
  }
  return result.data;
}

export interface ProgressFigures {
  done: number;
  total: number;
  cacheHits: number;
  tokensSpent: number;
}

/** A progress bar on stderr: done/total, ETA, cache hits, tokens spent. Silent when stderr is not a TTY. */
export function startProgressBar(label: string) {
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `${label} {bar} {value}/{total} | ETA {eta_formatted} | cache hits {cacheHits} | tokens {tokens}`,
      etaBuffer: 20,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(p: ProgressFigures) {
      const payload = { cacheHits: p.cacheHits, tokens: p.tokensSpent };
      if (!started) {
        bar.start(p.total, p.done, payload);
        started = true;
      } else {
        bar.setTotal(p.total);
        bar.update(p.done, payload);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

/**
 * First Ctrl-C: stop starting new work, abort calls in flight, keep everything finished.
 * Second Ctrl-C: exit at once.
 */
export function abortOnSigint(what: string): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write(`\n${what}: interrupted — finishing up; everything completed so far is kept. Ctrl-C again to quit now.\n`);
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  return { signal: controller.signal, dispose: () => process.off('SIGINT', onSigint) };
}

/**
 * Runs `work` with the stderr progress bar and Ctrl-C handling (abortOnSigint) for `label`; the
 * bar is stopped and the handler removed when it ends, so the caller reports afterwards.
 */
export async function withProgressAndSigint<T>(label: string, work: (hooks: { signal: AbortSignal; onProgress: (p: ProgressFigures) => void }) => Promise<T>): Promise<T> {
  const bar = startProgressBar(label);
  const sigint = abortOnSigint(label);
  try {
    return await work({ signal: sigint.signal, onProgress: bar.update });
  } finally {
    bar.stop();
    sigint.dispose();
  }
}

/** Task rubric ids, instructions, image fields and field labels of a study definition, or [] (with a warning) when it cannot be loaded. */
export function studyTasks(
  studyId: string,
  dirs: { studiesDir: string; surveysDir: string; rubricsDir?: string },
  warn: (m: string) => void,
): StudyTaskDefinition[] {
  try {
    const config = loadConfig({
      studiesDir: resolve(dirs.studiesDir),
      surveysDir: resolve(dirs.surveysDir),
      ...(dirs.rubricsDir !== undefined ? { rubricsDir: resolve(dirs.rubricsDir) } : {}),
    });
    const study = config.studies.get(studyId);
    if (!study) {
      warn(`study definition "${studyId}" not found in ${dirs.studiesDir}; rubrics come from --rubric or the task kind`);
      return [];
    }
    return judgeTasksOf(study);
  } catch (err) {
    warn(`could not load study definitions (${(err as Error).message.split('\n')[0]}); rubrics come from --rubric or the task kind`);
    return [];
  }
}
