/**
 * Pieces shared by the `judge` and `annotate` CLIs: flag parsing with zod (errors name the flag),
 * the stderr progress bar, Ctrl-C handling, and loading the study definition.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import cliProgress from 'cli-progress';
import type { z } from 'zod';
import { loadConfig } from '../services/config';
import type { StudyTaskDefinition } from './studySource';

export class UsageError extends Error {}

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

/** Task rubric ids and instructions of a study definition, or [] (with a warning) when it cannot be loaded. */
export function studyTasks(studyId: string, dirs: { studiesDir: string; surveysDir: string }, warn: (m: string) => void): StudyTaskDefinition[] {
  try {
    const config = loadConfig({ studiesDir: resolve(dirs.studiesDir), surveysDir: resolve(dirs.surveysDir) });
    const study = config.studies.get(studyId);
    if (!study) {
      warn(`study definition "${studyId}" not found in ${dirs.studiesDir}; rubrics come from --rubric or the task kind`);
      return [];
    }
    return study.tasks.map((t) => ({ id: t.id, rubric: t.rubric, instructions: t.instructions, imageFields: t.fields.filter((f) => f.kind === 'image').map((f) => f.id) }));
  } catch (err) {
    warn(`could not load study definitions (${(err as Error).message.split('\n')[0]}); rubrics come from --rubric or the task kind`);
    return [];
  }
}
