/**
 * The dashboard's research tools (server/admin/researchTools.ts) over research/: the dataset export, the judge and
 * the analysis, as the command lines run them.
 */
import { ExportRefused, type ResearchTools } from '../server/admin/researchTools';
import { runAnalysis } from '../research/analysis/runAnalysis';
import { DEFAULT_OPTIONS } from '../research/analysis/summary';
import { ExportError, exportStudy } from '../research/exports/exportStudy';
import { judgeStudyForDashboard } from '../research/judge/dashboardJudge';

export const researchTools: ResearchTools = {
  async exportDataset(request) {
    try {
      const { manifest } = await exportStudy(request);
      return { sessions: manifest.counts.sessions, redactions: manifest.redactions.total };
    } catch (err) {
      throw err instanceof ExportError ? new ExportRefused(err.message) : err;
    }
  },
  judgeStudy: (request) => judgeStudyForDashboard(request),
  async analyseDataset(datasetDir, outDir) {
    await runAnalysis(datasetDir, outDir, DEFAULT_OPTIONS);
  },
};
