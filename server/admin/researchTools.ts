/**
 * What the dashboard runs from the research tools: the dataset export, the judge and the analysis. The runtime
 * never imports research/: the wiring (wiring/researchTools.ts) implements this over research/exports,
 * research/judge and research/analysis and hands it to the admin plug-in.
 */
import type { JudgeImageMode } from '../../common/admin';
import type { FreeTextExport, Task } from '../../common/study';
import type { SurveyItem } from '../../common/survey';
import type { Store } from '../../lib/storage';

export interface DatasetExportRequest {
  store: Store;
  /** DATA_DIR: the pseudonym key and the uploaded files. */
  dataDir: string;
  studyId: string;
  /** A new, private folder the dataset is written into. */
  outDir: string;
  includePilot: boolean;
  includeIdentities: boolean;
  /** The study's export.free_text setting. */
  freeText?: FreeTextExport;
  /** The study's survey: the likert_<item> columns in survey order. */
  survey?: { items: readonly SurveyItem[] };
  onProgress?: (done: number, total: number) => void;
}

export interface StudyJudgeRequest {
  store: Store;
  dataDir: string;
  studyId: string;
  /** The study's tasks (their rubrics and fields); none when the study is no longer configured. */
  tasks: readonly Task[];
  /** `attach` shows uploaded images to a vision judge; the audit entry records the choice. */
  images: JudgeImageMode;
  /** OPENAI_API_KEY / OPENAI_BASE_URL / JUDGE_MODEL choose the judge (the offline demo judge without a key). */
  env: NodeJS.ProcessEnv;
  onProgress: (done: number, total: number) => void;
}

export interface ResearchTools {
  /** Writes the study's anonymised dataset; rejects with ExportRefused when the researcher must change something. */
  exportDataset(request: DatasetExportRequest): Promise<{ sessions: number; redactions: number }>;
  /** Judges the study's submitted artifacts in the store (samples and quality Q stored); resolves with a summary line. */
  judgeStudy(request: StudyJudgeRequest): Promise<string>;
  /** The productivity analysis of a dataset folder, its report written into outDir. */
  analyseDataset(datasetDir: string, outDir: string): Promise<void>;
}

/** An export the researcher has to change (no such study, one already being prepared): its message is shown as it is. */
export class ExportRefused extends Error {
  override name = 'ExportRefused';
}
