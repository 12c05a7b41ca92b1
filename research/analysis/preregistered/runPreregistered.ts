/** The --prereg part of `npm run analyze`: reads the plan and the deviations of the dataset and runs the plan. */
import { loadDataset } from '../input/dataset';
import type { AnalysisOptions } from '../summary';
import { readExclusionColumns, readLockedPlan, readRecordedDeviations } from './planInput';
import { preregisteredSection, type PreregisteredSection } from './preregisteredSection';
import { preregisteredHtml } from './preregisteredHtml';

export function preregisteredAnalysis(datasetDir: string, options: AnalysisOptions): { section: PreregisteredSection; html: string } {
  const locked = readLockedPlan(datasetDir);
  // Every session is read: the plan's exclusions (pilot included) decide which stay, not this run's flags.
  const data = loadDataset(datasetDir, { includePilot: true, includeUnconsented: false });
  const section = preregisteredSection({ locked, data, columns: readExclusionColumns(datasetDir), recorded: readRecordedDeviations(datasetDir), options });
  return { section, html: preregisteredHtml(section) };
}
