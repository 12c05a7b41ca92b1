/**
 * npm run prereg -- lock --study <id>      lock the study's plan (studies/<id>.prereg.yaml) as a new version
 * npm run prereg -- status --study <id>    locked versions and deviations (recording any new ones)
 * npm run prereg -- justify --study <id> --deviation <n> --text "…"
 *
 * Reads STUDIES_DIR / SURVEYS_DIR (default ./studies, ./surveys) and the database in DATA_DIR or DATABASE_URL,
 * like the other commands. docs/preregistration.md.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { DATABASE_FILE_NAME, openStore, storeConfigFromEnv } from '../lib/storage';
import { ConfigError, loadConfig } from '../lib/studyFiles/studyConfig';
import { lockPreregistration, NoPlanError, preregistrationJsonPath, preregistrationStatus } from '../lib/preregistration';
import { cliDataDirAnnounced } from './dataDir';
import { cliActor, flagErrors, StudyIdFlag } from '../research/exports/cliSupport';

const USAGE = `usage: npm run prereg -- lock --study <id> [--out <preregistration.json>]
       npm run prereg -- status --study <id>
       npm run prereg -- justify --study <id> --deviation <id> --text "<why>"`;

const Flags = z.discriminatedUnion('command', [
  z.object({ command: z.literal('lock'), study: StudyIdFlag, out: z.string().min(1).optional() }).strict(),
  z.object({ command: z.literal('status'), study: StudyIdFlag }).strict(),
  z
    .object({
      command: z.literal('justify'),
      study: StudyIdFlag,
      deviation: z.string().regex(/^\d+$/, 'must be a deviation id (see status)').transform(Number),
      text: z.string().trim().min(1, 'must say why').max(4000),
    })
    .strict(),
]);

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      options: { study: { type: 'string' }, out: { type: 'string' }, deviation: { type: 'string' }, text: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    console.error(`prereg: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    console.log(USAGE);
    return 0;
  }
  const { help: _help, ...values } = parsed.values;
  if (parsed.positionals.length !== 1) {
    console.error(`prereg: expected one command (lock, status or justify)\n${USAGE}`);
    return 2;
  }
  const flags = Flags.safeParse({ command: parsed.positionals[0], ...values });
  if (!flags.success) {
    console.error(`prereg: invalid command line:\n${flagErrors(flags.error).replace('--command:', 'command:')}\n${USAGE}`);
    return 2;
  }
  const f = flags.data;
  let config;
  try {
    config = loadConfig({ studiesDir: resolve(process.env.STUDIES_DIR ?? 'studies'), surveysDir: resolve(process.env.SURVEYS_DIR ?? 'surveys') });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`prereg: ${error.message}`);
      return 1;
    }
    throw error;
  }
  const study = config.studies.get(f.study);
  if (!study) {
    console.error(`prereg: no study "${f.study}" in ${resolve(process.env.STUDIES_DIR ?? 'studies')}`);
    return 1;
  }
  const dataDir = cliDataDirAnnounced();
  const storeConfig = storeConfigFromEnv(dataDir);
  if (!storeConfig.databaseUrl && !existsSync(join(dataDir, DATABASE_FILE_NAME)) && f.command !== 'lock') {
    console.error(`prereg: no database at ${join(dataDir, DATABASE_FILE_NAME)} (set DATA_DIR to the server's data folder)`);
    return 1;
  }
  const store = await openStore(storeConfig);
  try {
    const survey = config.surveys.get(study.survey);
    if (f.command === 'lock') {
      const outFile = f.out ? resolve(f.out) : preregistrationJsonPath(dataDir, study.id);
      const result = await lockPreregistration({ store, study, survey, actor: cliActor(), now: Date.now(), outFile });
      console.log(`${study.id}: ${result.message}`);
      console.log(`  plan hash  ${result.planHash}\n  study hash ${result.studyHash}`);
      if (result.outcome === 'locked') console.log(`wrote ${outFile}`);
      return 0;
    }
    if (f.command === 'justify') {
      const ok = await store.transaction(async (tx) => {
        const done = await tx.preregistrations.justify(study.id, f.deviation, f.text, cliActor(), Date.now());
        if (done) await tx.audit.append({ at: Date.now(), actor: cliActor(), action: 'preregistration_justification', studyId: study.id, details: { deviation: f.deviation } });
        return done;
      });
      if (!ok) {
        console.error(`prereg: no deviation ${f.deviation} of "${study.id}" (see npm run prereg -- status --study ${study.id})`);
        return 1;
      }
      console.log(`${study.id}: deviation ${f.deviation} justified`);
      return 0;
    }
    const status = await preregistrationStatus(store, { study, survey, now: Date.now() });
    console.log(`${study.id}: plan file ${status.planFile ?? '(none)'}`);
    for (const p of status.planProblems) console.log(`  problem: ${p}`);
    if (status.versions.length === 0) console.log('  not locked');
    for (const v of status.versions) console.log(`  version ${v.version} locked ${new Date(v.lockedAt).toISOString()} by ${v.lockedBy}  plan ${v.planHash.slice(0, 12)}  study ${v.studyHash.slice(0, 12)}`);
    if (status.versions.length > 0 && status.planChanged) console.log('  the plan file differs from the latest locked version: lock a new version or restore it');
    for (const d of status.deviations)
      console.log(`  deviation ${d.id} (v${d.version}, ${new Date(d.detectedAt).toISOString()}): ${d.file}: ${d.message}${d.justification ? ` — justified: ${d.justification}` : ''}`);
    return 0;
  } catch (error) {
    if (error instanceof ConfigError || error instanceof NoPlanError) {
      console.error(`prereg: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await store.close();
  }
}

process.exitCode = await main();
