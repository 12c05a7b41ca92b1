/**
 * The runtime's start-up check (server/app.ts): for every locked study, record what changed since its lock
 * before the first new session is served. Never stops data collection: a failure is logged, not thrown.
 */
import type { Logger } from 'pino';
import type { Store } from '../storage';
import type { LoadedConfig } from '../studyFiles/studyConfig';
import { recordDeviations } from './deviations';
import { readPlanFile } from './planFile';

export async function checkPreregistrationsAtStart(store: Store, config: LoadedConfig, options: { now: number; log: Logger; rubricsDir?: string }): Promise<void> {
  for (const study of config.studies.values()) {
    try {
      const { locked, recorded } = await recordDeviations(store, {
        study,
        survey: config.surveys.get(study.survey),
        now: options.now,
        ...(options.rubricsDir ? { rubricsDir: options.rubricsDir } : {}),
      });
      if (!locked) continue;
      for (const d of recorded) options.log.warn({ study: study.id, version: d.version, kind: d.kind, file: d.file, field: d.field }, `pre-registration deviation: ${d.file}: ${d.message}`);
      // An edited plan file is not a deviation of the study (the locked version stays in force), but say so.
      let planHash: string | null = null;
      try {
        planHash = readPlanFile(study.dir, study.id)?.hash ?? null;
      } catch {
        planHash = 'invalid';
      }
      if (planHash !== locked.planHash)
        options.log.warn({ study: study.id, version: locked.version }, `the plan file differs from locked version ${locked.version}, which stays in force: lock a new version or restore the file`);
    } catch (err) {
      options.log.error({ err, study: study.id }, 'pre-registration check failed; the study runs on');
    }
  }
}
