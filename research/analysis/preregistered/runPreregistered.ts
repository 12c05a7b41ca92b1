/** The --prereg part of `npm run analyze`: reads the plan and the deviations of the dataset, runs the plan, and keeps this run's deviations. */
import type { StoreConfig } from '../../../lib/storage';
import { loadDataset } from '../input/dataset';
import type { AnalysisOptions } from '../summary';
import { readExclusionColumns, readLockedPlan, readRecordedDeviations } from './planInput';
import { readJudgeSettings } from './judgeSettings';
import { preregisteredSection, type PreregisteredSection } from './preregisteredSection';
import { preregisteredHtml } from './preregisteredHtml';
import { recordRunDeviations } from './recordRunDeviations';

export interface RunDeviationTarget {
  /** The study's database (the CLI's --data-dir / DATABASE_URL / ./data); null or absent: the dataset folder's file. */
  store?: StoreConfig | null;
  actor?: string;
  now?: number;
}

export async function preregisteredAnalysis(datasetDir: string, options: AnalysisOptions, target: RunDeviationTarget = {}): Promise<{ section: PreregisteredSection; html: string }> {
  const locked = readLockedPlan(datasetDir);
  // Every session is read: the plan's exclusions (pilot included) decide which stay, not this run's flags.
  const data = loadDataset(datasetDir, { includePilot: true, includeUnconsented: false });
  const computed = preregisteredSection({ locked, data, columns: readExclusionColumns(datasetDir), recorded: readRecordedDeviations(datasetDir), options, judge: readJudgeSettings(datasetDir) });
  const run = await recordRunDeviations({ datasetDir, locked, deviations: computed.deviations, store: target.store ?? null, actor: target.actor ?? 'analyze', now: target.now ?? Date.now() });
  const section: PreregisteredSection = { ...computed, run_deviations: run };
  return { section, html: preregisteredHtml(section) };
}
