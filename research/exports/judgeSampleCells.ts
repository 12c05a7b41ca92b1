import type { ExportJudgement } from '../../lib/storage';

/**
 * The cells judgements.csv and group_judgements.csv share: everything of a judge sample but the judged unit (session
 * or group) and its version; the files' column order is columns.ts's. The raw replies and the store's other audit
 * fields stay out of the dataset.
 */
export const judgeSampleCells = (j: Omit<ExportJudgement, 'artifactVersion'>) => ({
  rubric_id: j.rubricId,
  rubric_hash: j.rubricHash,
  model: j.model,
  sample: j.sample,
  score: j.score,
  parse_ok: j.parseOk,
  cached: j.cached,
  // A JSON cell (not the ";"-joined list convention): each entry is an object, as in a judge's judgements.jsonl.
  images: j.images === null ? null : JSON.stringify(j.images),
});
