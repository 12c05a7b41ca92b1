/**
 * npm run export -- --study <id> --out <dir> [--include-pilot] [--include-unconsented] [--include-identities]
 *
 * Writes the study's anonymised dataset (layout: design.md) from the database in DATA_DIR (default ./data).
 * Pilot sessions, sessions that never consented and identities are left out unless asked for; withdrawn
 * participants always are.
 */
import { parseArgs } from 'node:util';
import { SingleBar, Presets } from 'cli-progress';
import { z } from 'zod';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE_NAME, openStore, storeConfigFromEnv } from '../lib/storage';
import { cliDataDirAnnounced } from './dataDir';
import { PseudonymKeyMismatchError } from '../lib/pseudonym';
import { exportStudy, ExportError } from '../research/exports/exportStudy';
import { cliActor, flagErrors, StudyIdFlag, surveyOfStudy } from '../research/exports/cliSupport';

const USAGE = 'usage: npm run export -- --study <id> --out <dir> [--include-pilot] [--include-unconsented] [--include-identities]';

const Flags = z
  .object({
    study: StudyIdFlag,
    out: z.string().min(1, 'must name the output folder'),
    includePilot: z.boolean(),
    includeUnconsented: z.boolean(),
    includeIdentities: z.boolean(),
  })
  .strict();

async function main(): Promise<number> {
  let raw;
  try {
    raw = parseArgs({
      options: {
        study: { type: 'string' },
        out: { type: 'string' },
        'include-pilot': { type: 'boolean', default: false },
        'include-unconsented': { type: 'boolean', default: false },
        'include-identities': { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const flags = Flags.safeParse({
    study: raw.study,
    out: raw.out,
    includePilot: raw['include-pilot'],
    includeUnconsented: raw['include-unconsented'],
    includeIdentities: raw['include-identities'],
  });
  if (!flags.success) {
    console.error(`invalid flags:\n${flagErrors(flags.error)}\n${USAGE}`);
    return 2;
  }
  const { study, out, includePilot, includeUnconsented, includeIdentities } = flags.data;
  const dataDir = cliDataDirAnnounced();

  const config = storeConfigFromEnv(dataDir);
  if (!config.databaseUrl && !existsSync(join(dataDir, DATABASE_FILE_NAME))) {
    console.error(`no database at ${join(dataDir, DATABASE_FILE_NAME)} (set DATA_DIR to the server's data folder)`);
    return 1;
  }
  const store = await openStore(config); // applies pending migrations, so the audit table exists
  const bar = process.stderr.isTTY ? new SingleBar({ format: 'export {bar} {value}/{total} sessions' }, Presets.shades_classic) : null;
  try {
    if (!(await store.studies.get(study))) {
      const known = (await store.studies.list()).map((s) => s.id).join(', ') || 'none';
      console.error(`no study "${study}" in ${store.description} (known: ${known})`);
      return 1;
    }
    await store.audit.append({ at: Date.now(), actor: cliActor(), action: 'export', studyId: study, details: { out, includePilot, includeUnconsented, includeIdentities, via: 'cli' } });

    const { survey, freeText, note } = surveyOfStudy(study);
    if (note) console.error(`note: Likert columns taken from the answers (${note})`);
    const result = await exportStudy({
      store,
      dataDir,
      studyId: study,
      outDir: out,
      includePilot,
      includeUnconsented,
      includeIdentities,
      freeText,
      ...(survey ? { survey } : {}),
      onProgress: (done, total) => {
        if (bar && done === 1) bar.start(total, 0);
        bar?.update(done);
      },
    });
    bar?.stop();
    const c = result.manifest.counts;
    console.log(
      `exported study "${study}" to ${result.outDir}: ${c.sessions} sessions, ${c.messages} messages, ${c.events} events, ` +
        `${c.artifacts} artifacts (${c.artifact_files} files), ${c.judgements} judge samples, ${c.annotations} annotations` +
        `${c.identities === null ? '' : `, ${c.identities} identity values (PERSONAL DATA in identities.csv)`}; ` +
        `${result.manifest.redactions.total} redactions; ${c.excluded_pilot_sessions} pilot sessions left out; ` +
        `${c.excluded_unconsented_sessions} visits that never answered the consent left out`,
    );
    return 0;
  } catch (error) {
    bar?.stop();
    if (error instanceof ExportError || error instanceof PseudonymKeyMismatchError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  } finally {
    await store.close();
  }
}

process.exitCode = await main();
