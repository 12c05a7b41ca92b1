/**
 * `teamwork from-study`: opens the study's configuration (studies/, surveys/) and the server's store
 * (DATA_DIR's SQLite file, or DATABASE_URL), and turns the study's seat sessions into runs (studyRuns.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE_NAME, openStore, storeConfigFromEnv } from '../../../lib/storage';
import { loadConfig } from '../../../lib/studyFiles/studyConfig';
import { teamworkSeatProblems } from './seatConditions';
import { StudyRunsError, studyRuns, type StudyRunsOutcome } from './studyRuns';

export interface ExportSeatStudyOptions {
  studyId: string;
  studiesDir: string;
  surveysDir: string;
  /** The server's data folder (the CLI's DATA_DIR or ./data). */
  dataDir: string;
  env: NodeJS.ProcessEnv;
}

export async function exportSeatStudy(options: ExportSeatStudyOptions): Promise<StudyRunsOutcome> {
  const config = loadConfig({ studiesDir: options.studiesDir, surveysDir: options.surveysDir }, [teamworkSeatProblems]);
  const study = config.studies.get(options.studyId);
  if (!study) throw new StudyRunsError(`--study: no study "${options.studyId}" in ${options.studiesDir} (known: ${[...config.studies.keys()].join(', ') || 'none'})`);
  const storeConfig = storeConfigFromEnv(options.dataDir, options.env);
  if (!storeConfig.databaseUrl && !existsSync(join(storeConfig.dataDir, DATABASE_FILE_NAME)))
    throw new StudyRunsError(`no database at ${join(storeConfig.dataDir, DATABASE_FILE_NAME)} (set DATA_DIR to the server's data folder, or DATABASE_URL)`);
  const store = await openStore(storeConfig);
  try {
    return await studyRuns(store, study, options.env);
  } finally {
    await store.close();
  }
}
