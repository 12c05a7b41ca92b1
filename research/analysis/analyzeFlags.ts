import { parseArgs } from 'node:util';
import { z } from 'zod';
import { COST_DEFINITIONS } from './productivity/costDefinitions';
import { DEFAULT_OPTIONS, type AnalysisOptions } from './summary';

export const ANALYZE_USAGE = `usage: npm run analyze -- <dataset-dir> [--out <dir>] [--lambda 0.5]
       [--cost ${COST_DEFINITIONS.join('|')}] [--bootstrap 1000] [--seed 1] [--include-pilot] [--include-unconsented] [--include-simulated] [--prereg [--data-dir <dir>]]`;

const numberFlag = (name: string) =>
  z
    .string()
    .regex(/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/, `--${name} must be a number`)
    .transform(Number);

const flagsSchema = z.object({
  dataset: z.string().min(1, 'missing <dataset-dir>'),
  out: z.string().min(1).optional(),
  lambda: numberFlag('lambda').pipe(z.number().min(0, '--lambda must be ≥ 0')).default(DEFAULT_OPTIONS.lambda),
  cost: z.enum(COST_DEFINITIONS, { error: `--cost must be one of ${COST_DEFINITIONS.join(', ')}` }).default('weighted'),
  bootstrap: numberFlag('bootstrap').pipe(z.number().int('--bootstrap must be an integer').min(0, '--bootstrap must be ≥ 0')).default(DEFAULT_OPTIONS.bootstrapReplicates),
  seed: numberFlag('seed').pipe(z.number().int('--seed must be an integer')).default(DEFAULT_OPTIONS.bootstrapSeed),
  'include-pilot': z.boolean().default(DEFAULT_OPTIONS.includePilot),
  'include-unconsented': z.boolean().default(false),
  /** Keep the sessions `npm run simulate --agent-participants` played (sessions.csv simulated = true). */
  'include-simulated': z.boolean().default(false),
  /** Run the locked plan of the dataset's preregistration.json first (research/analysis/preregistered/). */
  prereg: z.boolean().default(false),
  /** With --prereg: the study's data folder, where this run's deviations from the plan are recorded (default DATA_DIR or ./data). */
  'data-dir': z.string().min(1, '--data-dir must name a folder').optional(),
});

export type AnalyzeArgs =
  | { kind: 'help' }
  | { kind: 'error'; message: string }
  | { kind: 'run'; dataset: string; out: string; options: AnalysisOptions; prereg: boolean; dataDir?: string };

/** Parses and validates the analyze command line (zod); --out defaults to the dataset directory. */
export function parseAnalyzeArgs(argv: string[]): AnalyzeArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        out: { type: 'string' },
        lambda: { type: 'string' },
        cost: { type: 'string' },
        bootstrap: { type: 'string' },
        seed: { type: 'string' },
        'include-pilot': { type: 'boolean' },
        'include-unconsented': { type: 'boolean' },
        'include-simulated': { type: 'boolean' },
        prereg: { type: 'boolean' },
        'data-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    return { kind: 'error', message: (error as Error).message };
  }
  if (parsed.values.help) return { kind: 'help' };
  if (parsed.positionals.length > 1) return { kind: 'error', message: `expected one dataset directory, got ${parsed.positionals.length}` };
  const { help: _help, ...values } = parsed.values;
  const flags = flagsSchema.safeParse({ ...values, dataset: parsed.positionals[0] ?? '' });
  if (!flags.success) return { kind: 'error', message: flags.error.issues.map((i) => i.message).join('; ') };
  const f = flags.data;
  if (f['data-dir'] !== undefined && !f.prereg) return { kind: 'error', message: '--data-dir is for --prereg (where this run\'s deviations from the plan are recorded)' };
  return {
    kind: 'run',
    dataset: f.dataset,
    out: f.out ?? f.dataset,
    prereg: f.prereg,
    ...(f['data-dir'] !== undefined ? { dataDir: f['data-dir'] } : {}),
    options: {
      lambda: f.lambda,
      cost: f.cost,
      bootstrapReplicates: f.bootstrap,
      bootstrapSeed: f.seed,
      includePilot: f['include-pilot'],
      includeUnconsented: f['include-unconsented'],
      includeSimulated: f['include-simulated'],
    },
  };
}
