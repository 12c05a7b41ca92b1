import { loadDataset } from './input/dataset';
import { analyzeDataset, type AnalysisOptions } from './summary';
import { productivityCsv } from './output/productivityCsv';
import { writeOutputsAtomically } from './output/writeOutputs';
import { renderReport } from './report/renderReport';
import { readAgreementReport } from './report/agreementSection';
import { preregisteredAnalysis, type RunDeviationTarget } from './preregistered/runPreregistered';
import { analyzeGroups } from './groups/analyzeGroups';
import { groupProductivityCsv } from './groups/groupProductivityCsv';

/**
 * The analyze command's work: load and validate the dataset, run the analysis, and write
 * productivity.csv, summary.json and report.html into `outDir` (nothing is written when input is bad).
 * `warn` receives each of summary.json's warnings (the CLI prints them on stderr). An agreement.json
 * from `npm run agreement` in the dataset directory adds an agreement section to the report.
 */
export async function runAnalysis(
  datasetDir: string,
  outDir: string,
  options: AnalysisOptions,
  hooks: { warn?: (message: string) => void; prereg?: boolean; deviations?: RunDeviationTarget } = {},
): Promise<string[]> {
  const data = loadDataset(datasetDir, { includePilot: options.includePilot, includeUnconsented: options.includeUnconsented ?? false, includeSimulated: options.includeSimulated ?? false });
  const analysis = analyzeDataset(data, options);
  // Group conditions: the group is the unit (summary.json.groups, the report's "Groups"); null without them.
  const groups = analyzeGroups(datasetDir, data, options);
  if (groups) analysis.summary.groups = groups.section;
  for (const warning of [...analysis.summary.warnings, ...(groups?.section.warnings.map((w) => `groups: ${w}`) ?? [])]) hooks.warn?.(warning);
  // --prereg: the locked plan's analysis first (summary.json.preregistered; the report's first sections).
  // This run's own deviations from the plan are kept in the study's store when hooks.deviations reaches it.
  const prereg = hooks.prereg ? await preregisteredAnalysis(datasetDir, options, hooks.deviations) : null;
  const run = prereg?.section.run_deviations;
  if (run?.recorded_in === 'file') hooks.warn?.(`this run's deviations from the plan were not recorded in the study's store (${run.reason ?? 'unknown'}); they are in ${run.where}`);
  const report = await renderReport(data, analysis, { agreement: readAgreementReport(datasetDir), ...(prereg ? { preregisteredHtml: prereg.html } : {}), ...(groups ? { groupsHtml: groups.html } : {}) });
  return writeOutputsAtomically(outDir, {
    'productivity.csv': productivityCsv(data.sessions, analysis),
    'summary.json': `${JSON.stringify(prereg ? { preregistered: prereg.section, ...analysis.summary } : analysis.summary, null, 1)}\n`,
    'report.html': report,
    ...(groups ? { 'group_productivity.csv': groupProductivityCsv(groups.section) } : {}),
  });
}
