import { loadDataset } from './input/dataset';
import { analyzeDataset, type AnalysisOptions } from './summary';
import { productivityCsv } from './output/productivityCsv';
import { writeOutputsAtomically } from './output/writeOutputs';
import { renderReport } from './report/renderReport';

/**
 * The analyze command's work: load and validate the dataset, run the analysis, and write
 * productivity.csv, summary.json and report.html into `outDir` (nothing is written when input is bad).
 */
export async function runAnalysis(datasetDir: string, outDir: string, options: AnalysisOptions): Promise<string[]> {
  const data = loadDataset(datasetDir, { includePilot: options.includePilot, includeUnconsented: options.includeUnconsented ?? false });
  const analysis = analyzeDataset(data, options);
  const report = await renderReport(data, analysis);
  return writeOutputsAtomically(outDir, {
    'productivity.csv': productivityCsv(data.sessions, analysis),
    'summary.json': `${JSON.stringify(analysis.summary, null, 1)}\n`,
    'report.html': report,
  });
}
