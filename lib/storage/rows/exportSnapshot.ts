/**
 * The rows the dataset export's snapshot reads (lib/storage/sqlite/exportSnapshot.ts and
 * lib/storage/postgres/exportSnapshot.ts run the same SELECTs) and their mapping to the Export* shapes.
 * Engine-neutral except where a comment says: flags are INTEGER 0/1, JSON columns TEXT and BIGINT/COUNT a JS
 * number on both engines.
 */
import { toExportReview, type RawReviewExport } from './reviewExport';
import type { TelemetrySummary } from '../../../common/telemetrySummary';
import { parseImagesColumn } from './judgementImages';
import type { ExportAnnotation, ExportArtifact, ExportEvent, ExportGroupJudgement, ExportJudgement, ExportMessage, ExportSessionRow, ExportUpload } from '../contract/store';

/** A survey answer of the session aggregate: [item id, item kind, numeric value]. */
type AnswerTuple = [string, string, number];

export interface ExportSessionRaw {
  id: string;
  task_id: string;
  condition_id: string;
  status: string;
  is_pilot: number;
  created_at: number;
  consented_at: number | null;
  submitted_at: number | null;
  user_tokens: number;
  agent_tokens: number;
  user_turns: number;
  agent_turns: number;
  quality: number | null;
  /**
   * The session's numeric answers. The engines differ here: SQLite's json_group_array returns JSON TEXT,
   * PostgreSQL's json_agg a json value that node-postgres hands over parsed; either is accepted.
   */
  answers: string | AnswerTuple[] | null;
}

export function toExportSession(r: ExportSessionRaw): ExportSessionRow {
  const numericAnswers: Record<string, number> = {};
  const answerKinds: Record<string, string> = {};
  const answers = typeof r.answers === 'string' ? (JSON.parse(r.answers) as AnswerTuple[]) : (r.answers ?? []);
  for (const [item, kind, value] of answers) {
    numericAnswers[item] = value;
    answerKinds[item] = kind;
  }
  return {
    id: r.id,
    taskId: r.task_id,
    conditionId: r.condition_id,
    status: r.status,
    isPilot: r.is_pilot === 1,
    createdAt: r.created_at,
    consentedAt: r.consented_at,
    submittedAt: r.submitted_at,
    userTokens: r.user_tokens,
    agentTokens: r.agent_tokens,
    userTurns: r.user_turns,
    agentTurns: r.agent_turns,
    quality: r.quality,
    numericAnswers,
    answerKinds,
  };
}

export interface ExportMessageRaw {
  role: 'user' | 'assistant';
  text: string;
  created_at: number;
  tokens: number;
  model: string | null;
  ttft_ms: number | null;
  duration_ms: number | null;
  finish_reason: string | null;
  interrupted: number;
  status: string;
}

/** `seq` is the message's 1-based position within the session (the reader counts). Rows carry the joined review columns (reviewExport.ts). */
export const toExportMessage = (r: ExportMessageRaw & RawReviewExport, seq: number): ExportMessage => ({
  seq,
  role: r.role,
  text: r.text,
  createdAt: r.created_at,
  tokens: r.tokens,
  model: r.model,
  ttftMs: r.ttft_ms,
  durationMs: r.duration_ms,
  finishReason: r.finish_reason,
  interrupted: r.interrupted === 1,
  status: r.status,
  review: toExportReview(r),
});

export interface ExportEventRaw {
  seq: number;
  type: string;
  payload: string;
  server_ts: number;
  client_ts: number | null;
}

export const toExportEvent = (r: ExportEventRaw): ExportEvent => ({
  seq: r.seq,
  type: r.type,
  payload: JSON.parse(r.payload) as unknown,
  serverTs: r.server_ts,
  clientTs: r.client_ts,
});

export interface ExportArtifactRaw {
  version: number;
  fields: string;
  submitted_at: number;
}

export const toExportArtifact = (r: ExportArtifactRaw): ExportArtifact => ({
  version: r.version,
  fields: JSON.parse(r.fields) as Record<string, string>,
  submittedAt: r.submitted_at,
});

export interface ExportUploadRaw {
  id: string;
  field_id: string;
  file_name: string;
  content_type: string;
  storage_path: string;
}

export const toExportUpload = (r: ExportUploadRaw): ExportUpload => ({
  id: r.id,
  fieldId: r.field_id,
  fileName: r.file_name,
  contentType: r.content_type,
  storagePath: r.storage_path,
});

/** A judge sample's columns common to a session's and a group's (everything but the judged version). */
interface JudgeSampleRaw {
  rubric_id: string;
  rubric_hash: string;
  model: string;
  sample: number;
  score: number | null;
  parse_ok: number;
  cached: number;
  images: string | null;
}

export interface ExportJudgementRaw extends JudgeSampleRaw {
  artifact_version: number;
}

export interface ExportGroupJudgementRaw extends JudgeSampleRaw {
  doc_version: number;
}

/** `unit` ("session …", "group …") names the row in the error of a malformed images column. */
const toJudgeSample = (r: JudgeSampleRaw, unit: string): Omit<ExportJudgement, 'artifactVersion'> => ({
  rubricId: r.rubric_id,
  rubricHash: r.rubric_hash,
  model: r.model,
  sample: r.sample,
  score: r.score,
  parseOk: r.parse_ok === 1,
  cached: r.cached === 1,
  images: r.images === null ? null : parseImagesColumn(r.images, `${unit} sample ${r.sample}`),
});

export const toExportJudgement = (r: ExportJudgementRaw, sessionId: string): ExportJudgement => ({
  artifactVersion: r.artifact_version,
  ...toJudgeSample(r, `session ${sessionId}`),
});

export const toExportGroupJudgement = (r: ExportGroupJudgementRaw, groupId: string): ExportGroupJudgement => ({
  docVersion: r.doc_version,
  ...toJudgeSample(r, `group ${groupId}`),
});

export interface ExportAnnotationRaw {
  turn: number;
  speaker: string;
  friction: string | null;
  grounding: string;
}

export const toExportAnnotation = (r: ExportAnnotationRaw): ExportAnnotation => ({
  turn: r.turn,
  speaker: r.speaker,
  friction: r.friction,
  grounding: JSON.parse(r.grounding) as string[],
});

export interface ExportTelemetryRaw {
  summary: string;
  batches: number;
}

export const toExportTelemetry = (r: ExportTelemetryRaw): { summary: TelemetrySummary; batches: number } => ({
  summary: JSON.parse(r.summary) as TelemetrySummary,
  batches: r.batches,
});
