/**
 * npm run agreement -- <dataset-dir> [--ratings <ratings.csv>] [--labels <labels.csv>] [--out <dir>]
 *                      [--template <ratings-template.csv>] [--labels-template <labels-template.csv>] [--rater <name>]
 *
 * Agreement between the LLM judge (quality.csv / judgements.csv in the dataset) and human raters,
 * and between the LLM annotator (annotations.csv) and human annotators: prints tables, writes
 * agreement.json and agreement.csv to --out (default: the dataset directory). --template and
 * --labels-template write blank CSVs to hand out to raters (they can be used without --ratings).
 * --teamwork-labels reads a teamwork labels.csv (`npm run teamwork -- labels`) with people's labels filled in
 * and writes teamwork-agreement.json: each judge against each person, and the two judges, with the same κ.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { agreementCsv, agreementTable } from '../research/analysis/agreement/io/formatAgreement';
import { InputError } from '../research/analysis/agreement/io/inputError';
import { RaterName } from '../research/analysis/agreement/io/raterName';
import { readAnnotationsCsv, utteranceKey } from '../research/analysis/agreement/io/readLabelsCsv';
import { readUtterances } from '../research/analysis/agreement/io/readMessagesJsonl';
import { teamworkAgreementTable, teamworkLabelAgreement } from '../research/analysis/agreement/io/readTeamworkLabels';
import { labelsTemplate, ratingsTemplate } from '../research/analysis/agreement/io/writeTemplates';
import { readDatasetSessions, runAgreement } from '../research/analysis/agreement/runAgreement';

const USAGE =
  'usage: npm run agreement -- <dataset-dir> [--ratings <ratings.csv>] [--labels <labels.csv>] [--out <dir>] ' +
  '[--template <out.csv>] [--labels-template <out.csv>] [--rater <name>]\n' +
  '       npm run agreement -- <teamwork-out-dir> --teamwork-labels <labels.csv> [--out <dir>]';

const path = z.string().min(1);
const Flags = z
  .object({
    datasetDir: z.string({ message: 'missing <dataset-dir>' }).min(1, 'missing <dataset-dir>'),
    ratings: path.optional(),
    labels: path.optional(),
    out: path.optional(),
    template: path.optional(),
    labelsTemplate: path.optional(),
    rater: RaterName.optional(),
    teamworkLabels: path.optional(),
  })
  .refine((f) => f.ratings || f.labels || f.template || f.labelsTemplate || f.teamworkLabels, {
    message: 'nothing to do: give --ratings and/or --labels (or --template / --labels-template to write blank forms, or --teamwork-labels)',
  });
type Flags = z.output<typeof Flags>;

function parseFlags(argv: string[]): Flags {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        ratings: { type: 'string' },
        labels: { type: 'string' },
        out: { type: 'string' },
        template: { type: 'string' },
        'labels-template': { type: 'string' },
        rater: { type: 'string' },
        'teamwork-labels': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new InputError(`${(error as Error).message}\n${USAGE}`);
  }
  if (parsed.values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (parsed.positionals.length > 1) throw new InputError(`expected one <dataset-dir>, got ${parsed.positionals.join(' ')}\n${USAGE}`);
  const { 'labels-template': labelsTemplateFlag, 'teamwork-labels': teamworkLabelsFlag, help: _help, ...rest } = parsed.values;
  const result = Flags.safeParse({ datasetDir: parsed.positionals[0], ...rest, labelsTemplate: labelsTemplateFlag, teamworkLabels: teamworkLabelsFlag });
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const flag = issue.path[0] === 'datasetDir' || issue.path.length === 0 ? '' : `--${String(issue.path[0])}: `;
    throw new InputError(`${flag}${issue.message}\n${USAGE}`);
  }
  return result.data;
}

function writeTemplates(flags: Flags): void {
  if (flags.template) {
    const sessions = readDatasetSessions(flags.datasetDir);
    if (!sessions) throw new InputError('needs sessions.csv to list the sessions to rate', join(flags.datasetDir, 'sessions.csv'));
    writeFileSync(flags.template, ratingsTemplate(sessions, flags.rater ?? ''));
    console.error(`wrote ${flags.template} (${sessions.length} sessions to rate)`);
  }
  if (flags.labelsTemplate) {
    const messages = join(flags.datasetDir, 'messages.jsonl');
    const annotations = join(flags.datasetDir, 'annotations.csv');
    let utterances;
    if (existsSync(messages)) utterances = readUtterances(messages);
    else if (existsSync(annotations)) {
      // no transcript: list the annotated utterances without text
      utterances = [...(readAnnotationsCsv(annotations).values().next().value ?? new Map()).entries()].map(([key, u]) => ({
        session_id: key.slice(0, key.lastIndexOf('#')),
        turn: Number(key.slice(key.lastIndexOf('#') + 1)),
        speaker: u.speaker,
      }));
      utterances.sort((x, y) => utteranceKey(x.session_id, 0).localeCompare(utteranceKey(y.session_id, 0)) || x.turn - y.turn);
    } else throw new InputError('needs messages.jsonl (or annotations.csv) to list the utterances to label', messages);
    writeFileSync(flags.labelsTemplate, labelsTemplate(utterances, flags.rater ?? ''));
    console.error(`wrote ${flags.labelsTemplate} (${utterances.length} utterances to label)`);
  }
}

function main(): void {
  const flags = parseFlags(process.argv.slice(2));
  if (!existsSync(flags.datasetDir)) throw new InputError('dataset directory not found', flags.datasetDir);
  writeTemplates(flags);
  if (flags.teamworkLabels) {
    const report = teamworkLabelAgreement(flags.teamworkLabels);
    const outDir = flags.out ?? flags.datasetDir;
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, 'teamwork-agreement.json'), `${JSON.stringify(report, null, 1)}\n`);
    console.log(teamworkAgreementTable(report));
    console.error(`wrote ${join(outDir, 'teamwork-agreement.json')}`);
  }
  if (!flags.ratings && !flags.labels) return;
  const report = runAgreement({ datasetDir: flags.datasetDir, ratingsFile: flags.ratings, labelsFile: flags.labels });
  const outDir = flags.out ?? flags.datasetDir;
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'agreement.json'), `${JSON.stringify(report, null, 1)}\n`);
  writeFileSync(join(outDir, 'agreement.csv'), agreementCsv(report));
  console.log(agreementTable(report));
  console.error(`wrote ${join(outDir, 'agreement.json')} and agreement.csv`);
}

try {
  main();
} catch (error) {
  if (error instanceof InputError) {
    console.error(`agreement: ${error.message}`);
    process.exit(2);
  }
  const fsError = error as NodeJS.ErrnoException;
  if (fsError.code && fsError.syscall) {
    // e.g. an --out directory that is read-only: say which path, without a stack trace
    console.error(`agreement: ${fsError.message}`);
    process.exit(1);
  }
  throw error;
}
